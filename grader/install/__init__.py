"""What installing the grader runs: its pinned requirements read once, its bytecode written once."""
