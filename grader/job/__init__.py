"""The child side of the job boundary: one job process grading a list of submissions.

    main.py     the process: signals, its parent, and how it ends
    grading.py  its tests and fork server made ready, then each submission's result written
    runner.py   every hidden test called once per submission, as plain data
    suite.py    the hidden suite, read from its declarations (grader/hidden/cases.py)

Started as `python -m grader.job`; nothing here imports grader.batch: the two sides speak only
through grader/jobfiles.py.
"""
