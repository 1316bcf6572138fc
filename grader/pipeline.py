"""The grading pipeline end to end: discover → load → run → score → report.

The CLI and the self-check both grade through these functions, so what the self-check vouches
for is exactly what instructors run.
"""

import time
from pathlib import Path

from course.assemble import load_course
from grader import report, run
from grader.discover import UsageError, discover
from grader.load import load
from grader.model import RunResult
from grader.score import score


def find_submissions(paths, out_dir):
    """Discover and load every submission under `paths`, ready to grade into `out_dir`.

    Raise UsageError, before anything runs, if the paths or `out_dir` cannot be used.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"--out {out_dir} exists and is not a folder")
    course = load_course()
    return [load(found, course) for found in discover(paths, course)]


def grade_submissions(submissions, out_dir, settings, progress=None):
    """Run, score and report loaded submissions; return their Grades in student order.

    Each student's files are written as soon as that student is graded, so an interruption
    keeps every result already computed. `progress`, if given, has `start(total)`, called once,
    and `advance(grade)`, called after each student.
    """
    course = load_course()
    hidden_tests = run.hidden_tests()
    started = time.monotonic()
    grades, finished_after = {}, {}

    def record(result):
        student = result.submission.student
        if student in grades:
            return
        grade = score(result, hidden_tests)
        report.write_student(grade, out_dir, course)
        grades[student] = grade
        finished_after[student] = time.monotonic() - started
        # Rewritten after every student, so an interrupted run still leaves a usable grades.csv.
        report.write_grades(grades.values(), out_dir)
        if progress:
            progress.advance(grade)

    if progress:
        progress.start(len(submissions))
    runnable = [s for s in submissions if s.error is None]
    for submission in submissions:
        if submission.error is not None:
            record(RunResult(submission, (), "unreadable", reason=submission.error))
    for result in run.run_submissions(runnable, settings, on_result=record):
        record(result)
    ordered = [grades[student] for student in sorted(grades)]
    report.write_grades(ordered, out_dir)
    report.write_timings(finished_after, out_dir)
    return ordered
