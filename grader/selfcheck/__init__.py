"""The self-check: every fixture submission graded through the real pipeline, against expectations.

catalogue.py  the fixtures' expected grades and the check of each
trees.py      the intake's attacks: submissions made of links, pipes and devices
"""
