"""The grading pipeline end to end: discover → load → run → score → report.

The CLI and the self-check both grade through these functions, so what the self-check vouches
for is exactly what instructors run. A run into a folder that already holds results resumes:
students whose submission and grader are unchanged keep their stored result (grader.batch.resume).

One student never stops the batch: whatever fails while loading, running, scoring or reporting
a submission becomes that student's result, status "error" with a plain reason, and a line for
the instructor (`progress.note`); a student id that would mix files is refused (grader.intake.ids).
"""

import contextlib
import math
import signal
import time
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import NoReturn, Protocol

from course.manifest import Course, load_course
from grader.batch import resume, run
from grader.batch.shards import Shard
from grader.gradebook.book import ClassBook
from grader.gradebook.summary import StudentSummary
from grader.intake import ids
from grader.intake.discover import Found, UsageError, discover
from grader.intake.load import load
from grader.model import (
    MISSING,
    Grade,
    HiddenTest,
    JobFacts,
    RunResult,
    Submission,
    failure_reason,
)
from grader.reports import files
from grader.score import score

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
STUDENT_FILES = ("results.json", "feedback.md", "feedback.html")
GRADES_REWRITE_SECONDS = 1.0  # how often grades.csv is brought up to date during a run
GRADES_REWRITE_SHARE = 0.05  # and at most this share of the run's time goes to doing so


class Interrupted(BaseException):
    """A signal asked the grading run to stop; `signal_number` says which one."""

    def __init__(self, signal_number: int) -> None:
        super().__init__(signal_number)
        self.signal_number = signal_number


class Progress(Protocol):
    """What grade_submissions tells as it goes (see there; `note` and `learn` are optional)."""

    def start(self, total: int) -> None: ...

    def advance(self, grade: Grade) -> None: ...

    def resume(self, grade: Grade) -> None: ...


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM raise Interrupted (main thread only)."""

    def interrupt(number: int, _frame: FrameType | None) -> NoReturn:
        raise Interrupted(number)

    previous = {number: signal.signal(number, interrupt) for number in STOP_SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back until the block ends, so it is never left half done."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


# A submission to grade: loaded already, or found on disk and loaded when its turn comes, so
# that a class's code is never held in memory at once.
Pending = Submission | Found


def find_submissions(paths: Iterable[str | Path], out_dir: str | Path) -> list[Found]:
    """Discover every submission under `paths`, to grade into `out_dir`; nothing is read yet.

    Raise UsageError, before anything runs, if the paths or `out_dir` cannot be used.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"--out {out_dir} exists and is not a folder")
    return discover(paths, load_course())


def load_safely(found: Found, course: Course | None = None) -> Submission:
    """Load one submission; a failure of the grader's own becomes that student's result."""
    try:
        return load(found, course)
    except Exception as error:
        reason = failure_reason("reading", error)
        return Submission(found.student, str(found.path), found.kind, (), failure=reason)


def grade_submissions(
    submissions: Sequence[Pending],
    out_dir: str | Path,
    settings: run.RunSettings,
    progress: Progress | None = None,
    book: ClassBook | None = None,
    shard: Shard | None = None,
) -> Sequence[StudentSummary]:
    """Load, run, score and report submissions; return their summaries in student order.

    Each submission is loaded (if it was only found) when its turn comes and its code is
    handed to the jobs' input at once, so the code of a whole class is never in memory.

    Each student's files, and the run result kept for resuming, are written as soon as that
    student is graded, so an interruption keeps every result already computed; grades.csv is
    rewritten on the way out with every student finished so far. What is kept of each student
    is their StudentSummary (grader.gradebook.summary), on disk (grader.gradebook.store), so a
    run's memory does not grow with the class; the summaries returned are read from there.

    `progress`, if given, has `start(total)`, called once, `advance(grade)`, called after each
    student graded, `resume(grade)`, called instead for each student whose stored result is
    reused, and `note(line)`, if it has one, called with one line for the instructor about
    anything that went wrong (a refused student id, a grader failure, a job that died).
    `book`, a grader.gradebook.book.ClassBook if given, adds a "missing" row for each rostered
    student who sent nothing, with its late penalty each summary it keeps; grades.csv then has
    its columns too. `shard`, a grader.batch.shards.Shard if given, grades only its slice of the
    class.
    """
    book = book if book is not None else ClassBook()
    refused = ids.refusals(s.student for s in submissions)
    pending = [_refuse(s, refused.get(s.student)) for s in submissions]
    missing = book.missing_results(s.student for s in pending)
    if shard is not None:
        everyone = [s.student for s in pending] + [r.submission.student for r in missing]
        chosen = shard.students(everyone)
        pending = [s for s in pending if s.student in chosen]
        missing = [r for r in missing if r.submission.student in chosen]
    grading = _Grading(out_dir, progress, refused, book, resume.grader_version(settings))
    if progress:
        progress.start(len(pending) + len(missing))
    try:
        # Recorded once the hidden tests are known, which the jobs tell as they start.
        grading.waiting = list(missing)
        run.run_submissions(
            grading.to_run(pending),
            settings,
            on_result=grading.record,
            log_dir=Path(out_dir) / run.LOG_FOLDER,
            on_note=grading.note,
            on_facts=grading.learn,
        )
        grading.record_waiting()
    finally:
        with _signals_held():
            grading.write_grades()
            files.write_timings(grading.finished.in_student_order(), out_dir)
    return book.summaries()


def _not_runnable(submission: Submission) -> bool:
    return submission.error is not None or submission.failure is not None


def _result_without_running(submission: Submission) -> RunResult:
    """Return the result of a submission nothing of which can run: refused, failed or unreadable."""
    if submission.failure is not None:
        return RunResult(submission, (), "error", reason=submission.failure)
    return RunResult(submission, (), "unreadable", reason=submission.error or "")


def _refuse(submission: Pending, reason: str | None) -> Pending:
    """Return `submission` marked as not to be graded for `reason`, or as it is without one."""
    if reason is None:
        return submission
    # Nothing is read for a refused submission, nor written under its id: only its row.
    student, path, kind = submission.student, str(submission.path), submission.kind
    return Submission(student, path, kind, (), failure=reason)


def _with_fingerprint(submission: Submission, version: str) -> tuple[Submission, str | None]:
    """Return `submission` and the fingerprint resume keeps its result under (None if never kept).

    A submission whose fingerprint cannot be computed (code that is not valid text, say)
    becomes a failure of the grader's own rather than stopping the batch.
    """
    if submission.failure is not None:
        return submission, None
    try:
        return submission, resume.fingerprint(submission, version)
    except Exception as error:
        reason = failure_reason("preparing", error)
        student, path, kind = submission.student, submission.path, submission.kind
        return Submission(student, path, kind, (), failure=reason), None


def _stored_result(
    out_dir: str | Path, submission: Submission, key: str | None
) -> RunResult | None:
    """Return the stored result to reuse for `submission`, or None to grade it."""
    if submission.failure is not None:
        return None  # a refusal or a failure of the grader's own is never kept: try again
    try:
        return resume.stored_result(out_dir, submission, key)
    except Exception:
        return None  # a record too strange even for stored_result's checks: grade again


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


class _Grading:
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

    def to_run(self, pending: Iterable[Pending]) -> Iterator[Submission]:
        """Load each submission in turn and yield those to run; record the others at once.

        A stored result still valid is recorded (resumed) and a submission nothing of which
        can run waits for the hidden tests; only one submission's code is held at a time.
        """
        for item in pending:
            loaded = item if isinstance(item, Submission) else load_safely(item, self.course)
            submission, key = _with_fingerprint(loaded, self.version)
            if key is not None:
                self.keys[submission.student] = bytes.fromhex(key)
            stored = _stored_result(self.out_dir, submission, key)
            if stored is not None:
                self.record(stored, resumed=True)
            elif _not_runnable(submission):
                self.waiting.append(_result_without_running(submission))
            else:
                yield submission

    def record_waiting(self) -> None:
        """Record the results that waited for the hidden tests."""
        waiting, self.waiting = self.waiting, []
        for result in waiting:
            self.record(result)

    def write_grades(self) -> None:
        """Write grades.csv with every student recorded so far (and the book's columns)."""
        columns = (self.book.grades_columns(), self.book.grades_cells)
        files.write_grades(self.book.summaries(), self.out_dir, columns)

    def record(self, result: RunResult, resumed: bool = False) -> None:
        """Score, report and keep one result; a result already recorded is ignored."""
        student = result.submission.student
        if self.book.has(student):
            return
        self.hidden_tests  # noqa: B018 - known before the first student is scored
        # A student's files are written all together or not at all, whatever signal comes.
        with _signals_held():
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
            self.note(f"{_shown(submission.path)}: {submission.failure}")
        elif submission.failure is not None:
            self.note(
                f"The grader failed on {submission.student!r} ({_shown(submission.path)}) "
                "before running it; their status is error, and grading again retries it."
            )
        try:
            grade = score(result, self.hidden_tests)
            self._write_files(grade)
        except Exception as error:
            self.note(
                f"The grader failed on {submission.student!r} while scoring or reporting "
                f"({type(error).__name__}: {_shown(str(error))[:200]}); their status is error."
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
            files.write_student(grade, self.out_dir, self.course)


def _shown(text: str) -> str:
    """Return `text` as it can be printed on one line: as a literal if it holds a line break."""
    return text if text.isprintable() else repr(text)
