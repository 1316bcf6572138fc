"""The grading pipeline end to end: discover → load → run → score → report.

The CLI and the self-check both grade through these functions, so what the self-check vouches
for is exactly what instructors run. A run into a folder that already holds results resumes:
students whose submission and grader are unchanged keep their stored result (grader.resume).
"""

import contextlib
import signal
import time
from pathlib import Path

from course.assemble import load_course
from grader import report, resume, run
from grader.discover import UsageError, discover
from grader.load import load
from grader.model import RunResult
from grader.score import score

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """A signal asked the grading run to stop; `signal_number` says which one."""

    def __init__(self, signal_number):
        super().__init__(signal_number)
        self.signal_number = signal_number


@contextlib.contextmanager
def stop_on_signals():
    """Within the block, SIGINT and SIGTERM raise Interrupted (main thread only)."""

    def interrupt(number, _frame):
        raise Interrupted(number)

    previous = {number: signal.signal(number, interrupt) for number in STOP_SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


@contextlib.contextmanager
def _signals_held():
    """Hold SIGINT and SIGTERM back until the block ends, so it is never left half done."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


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

    Each student's files, and the run result kept for resuming, are written as soon as that
    student is graded, so an interruption keeps every result already computed; grades.csv is
    rewritten on the way out with every student finished so far. `progress`, if given, has
    `start(total)`, called once, `advance(grade)`, called after each student graded, and
    `resume(grade)`, called instead for each student whose stored result is reused.
    """
    version = resume.grader_version(settings)
    keys = {s.student: resume.fingerprint(s, version) for s in submissions}
    grading = _Grading(out_dir, keys, progress)
    if progress:
        progress.start(len(submissions))
    try:
        stored = [resume.stored_result(out_dir, s, keys[s.student]) for s in submissions]
        for result in filter(None, stored):
            grading.record(result, resumed=True)
        to_run = [s for s, kept in zip(submissions, stored, strict=True) if kept is None]
        for submission in to_run:
            if submission.error is not None:
                grading.record(RunResult(submission, (), "unreadable", reason=submission.error))
        runnable = [s for s in to_run if s.error is None]
        run.run_submissions(runnable, settings, on_result=grading.record)
    finally:
        with _signals_held():
            report.write_grades(grading.grades.values(), out_dir)
            report.write_timings(grading.finished_after, out_dir)
    return [grading.grades[student] for student in sorted(grading.grades)]


class _Grading:
    """Scores and reports each result as it comes in, keeping it for a later resumed run."""

    def __init__(self, out_dir, keys, progress):
        self.out_dir = out_dir
        self.keys = keys
        self.progress = progress
        self.course = load_course()
        self.hidden_tests = run.hidden_tests()
        self.started = time.monotonic()
        self.grades = {}
        self.finished_after = {}  # only students graded in this run

    def record(self, result, resumed=False):
        """Score, report and keep one result; a result already recorded is ignored."""
        student = result.submission.student
        if student in self.grades:
            return
        # A student's files are written all together or not at all, whatever signal comes.
        with _signals_held():
            grade = score(result, self.hidden_tests)
            report.write_student(grade, self.out_dir, self.course)
            if not resumed and result.reason != run.LOST_REASON:
                resume.save(self.out_dir, result, self.keys[student])
            self.grades[student] = grade
            if not resumed:
                self.finished_after[student] = time.monotonic() - self.started
                # Rewritten after each student, so even kill -9 leaves a usable grades.csv.
                report.write_grades(self.grades.values(), self.out_dir)
            if self.progress:
                (self.progress.resume if resumed else self.progress.advance)(grade)
