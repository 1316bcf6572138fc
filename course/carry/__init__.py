"""Carrying each step's saved work forward into later notebooks, and saying what is missing.

analysis: what a cell defines and uses. notebooks: a saved notebook's cells. assemble: the carry
rule. diagnose: what keeps a step's work from being whole. execute: running the carried cells.
history: checked work that was never saved. setup_cell: the first code cell's report.
"""
