"""Mutation analysis of the hidden suite: grade mutants of the reference and list survivors.

`python -m tooling.mutation` makes every mutant mutmut's operators give for the reference
solution's functions, grades them all in one batch with `python -m grader grade`, and reports
which mutants the hidden tests kill, by category, and which survive. A survivor that is not
recorded in equivalent.toml (beside this file) as behaving like the reference under
CONTRACT.md is a gap in the hidden suite, and makes the command exit 1.
"""
