"""Whose hand-in a zip is: the file the hand-in writes at the zip's root, and what it may hold.

The hand-in (course/handin.py) writes it and the grader's intake reads it, so both take these
names from here: a module of constants that the Gradescope bundle and the worker carry too.
"""

IDENTITY_FILE = "student.json"  # at the zip's root: {"student": "<login as typed>"}
REMEMBERED_FILE = ".student.json"  # beside the notebooks, so the login is asked once
MAX_LOGIN = 100  # characters: a login, not an essay
