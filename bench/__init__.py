"""Benchmark of the grader against nbgrader autograde; run with `python -m bench`."""
