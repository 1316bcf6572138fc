"""The self-check: every fixture submission graded through the real pipeline, against expectations.

    expectations.py  the fixtures' expected grades, read from their folders and exceptions.toml
    catalogue.py     the fixtures graded in one batch and each grade checked
    trees.py         the intake's attacks: submissions made of links, pipes and devices
"""
