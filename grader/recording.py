"""Each result as it comes in: scored, reported in the student's files, kept for resuming.

The pipeline (grader/pipeline.py) hands every result here; a student's files are written all
together or not at all, whatever signal comes (`signals_held`), and grades.csv is brought up to
date now and then, so even a killed run leaves a usable one.
"""

import contextlib
import math
import signal
import time
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from course.manifest import load_course
from grader.batch import resume, run
from grader.gradebook.book import ClassBook
from grader.model import (
    DOUBTFUL,
    MISSING,
    UNCONFIRMED,
    Grade,
    HiddenTest,
    JobFacts,
    RunResult,
    Submission,
    failure_reason,
)
from grader.reports import grade_files
from grader.score import score

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
STUDENT_FILES = ("results.json", "feedback.md", "feedback.html")
GRADES_REWRITE_SECONDS = 1.0  # how often grades.csv is brought up to date during a run
GRADES_REWRITE_SHARE = 0.05  # and at most this share of the run's time goes to doing so


class Progress(Protocol):
    """What grade_submissions tells as it goes (see there; `note` and `learn` are optional)."""

    def start(self, total: int) -> None: ...

    def advance(self, grade: Grade) -> None: ...

    def resume(self, grade: Grade) -> None: ...


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back until the block ends, so it is never left half done."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@dataclass(frozen=True)
class _FinishTimes:
    """When each student graded in this run finished, in seconds from its start.

    Two flat lists rather than a dict, which would hold about 50 bytes more a student.
    """

    students: list[str]
    seconds: "array[float]"

    def add(self, student: str, seconds: float) -> None:
        """Note that `student` finished `seconds` after the start."""
        self.students.append(student)
        self.seconds.append(seconds)

    def in_student_order(self) -> Iterator[tuple[str, float]]:
        """Yield (student, seconds) by student id."""
        for index in sorted(range(len(self.students)), key=self.students.__getitem__):
            yield self.students[index], self.seconds[index]


class Recording:
    """Scores and reports each result as it comes in, keeping it for a later resumed run."""

    def __init__(
        self,
        out_dir: str | Path,
        progress: Progress | None,
        refused: dict[str, str],
        book: ClassBook,
        version: str,
    ) -> None:
        self.out_dir = out_dir
        # The fingerprint of each student loaded and not yet recorded, as the hash's bytes:
        # half the memory of its hex digits, for each student waiting in a job.
        self.keys: dict[str, bytes] = {}
        self.progress = progress
        self.refused = refused  # student ids whose files must not be written
        self.course = load_course()
        self.book = book
        self.version = version
        self.facts: JobFacts | None = None  # the hidden tests and isolation, once known
        self.started = time.monotonic()
        self.waiting: list[RunResult] = []  # results to record once the hidden tests are known
        self.finished = _FinishTimes([], array("d"))  # only students graded in this run
        self.grades_written = -math.inf  # when grades.csv was last rewritten during the run
        self.grades_cost = 0.0  # how long that rewrite took
        # Statuses whose stored result a resumed run grades again (grader.model.DOUBTFUL at least).
        self.regrade: frozenset[str] = DOUBTFUL
        # Doubtful first results, by student, held back until a second grading confirms them.
        self.held: dict[str, RunResult] = {}
        self.confirmed = 0  # second gradings that ended doubtful again

    @property
    def hidden_tests(self) -> tuple[HiddenTest, ...]:
        """Return the hidden tests: from this run's jobs, an earlier run's record, or a listing."""
        facts = self.facts
        if facts is None:
            facts = resume.stored_facts(self.out_dir, self.version)
            if facts is None:  # no job runs and nothing is stored: ask a job to list them
                facts = JobFacts(run.hidden_tests(), "")
            self.learn(facts)  # which keeps them: no facts were known
        return facts.hidden_tests

    def learn(self, facts: JobFacts) -> None:
        """Take what the jobs know (hidden tests, isolation) before their first result."""
        if self.facts is None or not self.facts.isolation:
            self.facts = facts
            self.book.use_catalogue(facts.hidden_tests)
            if facts.isolation:  # from jobs of this run: kept for a run that resumes them all
                with contextlib.suppress(Exception):
                    resume.save_facts(self.out_dir, self.version, facts)
            if self.progress is not None and hasattr(self.progress, "learn"):
                self.progress.learn(facts)
        self.record_waiting()

    def record_waiting(self) -> None:
        """Record the results that waited for the hidden tests."""
        waiting, self.waiting = self.waiting, []
        for result in waiting:
            self.record(result)

    def hold_doubtful(self, result: RunResult) -> None:
        """Record `result`, or hold it back for a second grading if it is doubtful."""
        if result.has_status(UNCONFIRMED) and result.reason != run.LOST_REASON:
            self.held[result.submission.student] = result
        else:
            self.record(result)

    def record_confirmed(self, result: RunResult) -> None:
        """Record the second grading of a held student: it is the result, whatever it says."""
        self.held.pop(result.submission.student, None)
        self.confirmed += result.has_status(UNCONFIRMED)
        self.record(result)

    def record_held(self) -> None:
        """Record the first result of every held student not graded again (the run stopped)."""
        held, self.held = self.held, {}
        for result in held.values():
            self.record(result)

    def write_grades(self) -> None:
        """Write grades.csv with every student recorded so far (and the book's columns)."""
        columns = (self.book.grades_columns(), self.book.grades_cells)
        grade_files.write_grades(self.book.summaries(), self.out_dir, columns)

    def record(self, result: RunResult, resumed: bool = False) -> None:
        """Score, report and keep one result; a result already recorded is ignored."""
        student = result.submission.student
        if self.book.has(student):
            return
        self.hidden_tests  # noqa: B018 - known before the first student is scored
        # A student's files are written all together or not at all, whatever signal comes.
        with signals_held():
            grade = self._grade(result, resumed)
            page = Path(self.out_dir) / student / "feedback.html"
            self.book.add(grade, seconds=result.seconds, has_feedback=page.is_file())
            if not resumed:
                self.finished.add(student, time.monotonic() - self.started)
                self._rewrite_grades_now_and_then()
            if self.progress:
                (self.progress.resume if resumed else self.progress.advance)(grade)

    def _rewrite_grades_now_and_then(self) -> None:
        """Bring grades.csv up to date during the run, now and then rather than every time.

        Rewritten as students finish, so even kill -9 leaves a usable grades.csv (the students
        of its last seconds are in .resume for the next run). Never more often than once a
        second, nor than GRADES_REWRITE_SHARE of the time allows, or a large class would pay for
        n rewrites of n rows. A failure here is left to the last write, after the run, to report.
        """
        since = time.monotonic() - self.grades_written
        if since < max(GRADES_REWRITE_SECONDS, self.grades_cost / GRADES_REWRITE_SHARE):
            return
        started = time.monotonic()
        with contextlib.suppress(Exception):
            self.write_grades()
        self.grades_written = time.monotonic()
        self.grades_cost = self.grades_written - started

    def _writes_files(self, grade: Grade) -> bool:
        """Say whether this student gets files of their own: not if refused or absent."""
        student = grade.run.submission.student
        return student not in self.refused and grade.run.status != MISSING

    def note(self, line: str) -> None:
        """Pass one line for the instructor on to the progress reporter, if it takes notes."""
        if self.progress is not None and hasattr(self.progress, "note"):
            self.progress.note(line)

    def _grade(self, result: RunResult, resumed: bool) -> Grade:
        """Score and report one result; whatever fails makes it an "error" result instead."""
        submission = result.submission
        # A refusal or a failure of the grader's own has no fingerprint: it is never kept.
        digest = self.keys.pop(submission.student, None)
        key = None if digest is None else digest.hex()
        if submission.student in self.refused:
            self.note(f"{shown(submission.path)}: {submission.failure}")
        elif submission.failure is not None:
            self.note(
                f"The grader failed on {submission.student!r} ({shown(submission.path)}) "
                "before running it; their status is error, and grading again retries it."
            )
        try:
            grade = score(result, self.hidden_tests)
            self._write_files(grade)
        except Exception as error:
            self.note(
                f"The grader failed on {submission.student!r} while scoring or reporting "
                f"({type(error).__name__}: {shown(str(error))[:200]}); their status is error."
            )
            return self._error_grade(submission, failure_reason("reporting on", error))
        kept = result.reason != run.LOST_REASON and result.status != MISSING
        if not resumed and kept and key is not None:
            # Without its record the student is simply graded again next time.
            with contextlib.suppress(Exception):
                resume.save(self.out_dir, result, key)
        return grade

    def _error_grade(self, submission: Submission, reason: str) -> Grade:
        """Return, and report as best it can, the "error" grade of a student the grader failed."""
        result = RunResult(submission, (), "error", reason)
        try:
            grade = score(result, self.hidden_tests)
        except Exception:
            grade = score(result)  # no hidden tests to list: nothing can fail
        try:
            self._write_files(grade)
        except Exception:
            # Better no files than files that contradict the student's row in grades.csv.
            folder = Path(self.out_dir) / submission.student
            for name in STUDENT_FILES:
                with contextlib.suppress(OSError):
                    (folder / name).unlink(missing_ok=True)
        return grade

    def _write_files(self, grade: Grade) -> None:
        """Write a student's own files, unless their id was refused or they sent nothing."""
        if self._writes_files(grade):
            notes = self.book.feedback_notes(grade.run.submission.student)
            grade_files.write_student(grade, self.out_dir, self.course, notes)


def shown(text: str) -> str:
    """Return `text` as it can be printed on one line: as a literal if it holds a line break."""
    return text if text.isprintable() else repr(text)
