"""The child side of the job boundary: one job process grading a list of submissions.

    main.py     the process: signals, its parent, and how it ends
    grading.py  the job's body: its tests and fork server made ready, then one submission after
                another graded, every hidden test called once for each, each result written
    suite.py    the hidden suite, read from its declarations (grader/hidden/cases.py), and one
                hidden test called for one submission, as plain data

Started as `python -m grader.job`; nothing here imports grader.batch: the two sides speak only
through grader/jobfiles.py.
"""
