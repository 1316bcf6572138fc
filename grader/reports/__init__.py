"""The report step: each student's files, grades.csv, feedback pages, the class report.

Each student's result is kept as a small summary (summary.py), on disk while a run goes
(store.py); the class files, and the run's table on the terminal (grader/cli/progress.py), are
built from summaries alone.
"""
