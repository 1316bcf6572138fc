"""The self-check: every fixture graded through the real pipeline, against its expectation.

    expectations.py  the fixtures' expected grades, read from their folders and exceptions.toml
    catalogue.py     the fixtures graded in one batch and each grade checked
    trees.py         the intake's attacks: submissions made of links, pipes and devices

Run as `python -m grader selfcheck`, and by Gradescope's setup.sh inside its image.
"""
