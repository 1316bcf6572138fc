"""Mutation analysis of the hidden suite: grade mutants of the reference and list survivors.

`python -m tooling.mutation` makes every mutant that mutmut's operators, the course's own
(operators.py) and the generated suite's bug classes (classes.py) give for the reference
solution's functions, and the same bug classes as edits of the independently written second
reference, and grades them all in one batch with `python -m grader grade`, beside both
references, which must score full marks. It reports which mutants the hidden tests kill, by
category, and which survive. A survivor not recorded in equivalent.toml (beside this file) as
behaving like the reference under CONTRACT.md, or a class mutant losing points outside its
bug's categories, is a gap in the hidden suite, and makes the command exit 1.
"""
