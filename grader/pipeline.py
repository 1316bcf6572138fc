"""The grading pipeline end to end: discover → load → run → score → report.

The CLI and the self-check both grade through these functions, so what the self-check vouches
for is exactly what instructors run. A run into a folder that already holds results resumes:
students whose submission and grader are unchanged keep their stored result (grader.batch.resume).

One student never stops the batch: whatever fails while loading, running, scoring or reporting
a submission becomes that student's result, status "error" with a plain reason, and a line for
the instructor (`progress.note`); a student id that would mix files is refused (grader.intake.ids).
"""

import contextlib
import signal
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import NoReturn

from course.manifest import Course, load_course
from grader.batch import resume, run
from grader.batch.shards import Shard
from grader.gradebook.book import ClassBook
from grader.intake import ids
from grader.intake.discover import Found, discover
from grader.intake.handins import Unpacking
from grader.intake.load import load
from grader.model import (
    DOUBTFUL,
    RunResult,
    Submission,
    UsageError,
    failure_reason,
)
from grader.outputs import LOG_FOLDER
from grader.recording import STOP_SIGNALS, Progress, Recording, signals_held
from grader.reports import grade_files
from grader.reports.summary import StudentSummary


class Interrupted(BaseException):
    """A signal asked the grading run to stop; `signal_number` says which one."""

    def __init__(self, signal_number: int) -> None:
        super().__init__(signal_number)
        self.signal_number = signal_number


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


# A submission to grade: loaded already, or found on disk and loaded when its turn comes, so
# that a class's code is never held in memory at once.
Pending = Submission | Found


def find_submissions(
    paths: Iterable[str | Path], out_dir: str | Path, zips: Unpacking | None = None
) -> list[Found]:
    """Discover every submission under `paths`, to grade into `out_dir`; nothing is read yet.

    Hand-in zips are opened into `zips`'s scratch folder (its notes are for the summary), and
    left out without it. Raise UsageError, before anything runs, if the paths or `out_dir`
    cannot be used.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"--out {out_dir} exists and is not a folder")
    return discover(paths, load_course(), zips.open if zips else None)


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
    regrade: Collection[str] = (),
) -> Sequence[StudentSummary]:
    """Load, run, score and report submissions; return their summaries in student order.

    Each submission is loaded (if it was only found) when its turn comes and its code is
    handed to the jobs' input at once, so the code of a whole class is never in memory.

    Each student's files, and the run result kept for resuming, are written as soon as that
    student is graded, so an interruption keeps every result already computed; grades.csv is
    rewritten on the way out with every student finished so far. What is kept of each student
    is their StudentSummary (grader.reports.summary), on disk (grader.reports.store), so a
    run's memory does not grow with the class; the summaries returned are read from there.

    `progress`, if given, has `start(total)`, called once, `advance(grade)`, called after each
    student graded, `resume(grade)`, called instead for each student whose stored result is
    reused, and `note(line)`, if it has one, called with one line for the instructor about
    anything that went wrong (a refused student id, a grader failure, a job that died).
    `book`, a grader.gradebook.book.ClassBook if given, adds a "missing" row for each rostered
    student who sent nothing, with its late penalty each summary it keeps; grades.csv then has
    its columns too. `shard`, a grader.batch.shards.Shard if given, grades only its slice of the
    class. A stored result is graded again when it has a status in `regrade` or in DOUBTFUL.
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
    grading = Recording(out_dir, progress, refused, book, resume.grader_version(settings))
    grading.regrade = DOUBTFUL | frozenset(regrade)
    if progress:
        progress.start(len(pending) + len(missing))
    try:
        # Recorded once the hidden tests are known, which the jobs tell as they start.
        grading.waiting = list(missing)
        _run(grading, pending, settings, grading.hold_doubtful)
        _confirm(grading, pending, settings)
        grading.record_waiting()
    finally:
        with signals_held():
            grading.record_held()  # an interrupted run keeps first results for its grades.csv
            grading.write_grades()
            grade_files.write_timings(grading.finished.in_student_order(), out_dir)
    return book.summaries()


def _run(
    grading: Recording,
    pending: Iterable[Pending],
    settings: run.RunSettings,
    on_result: Callable[[RunResult], None],
) -> None:
    run.run_submissions(
        _to_run(grading, pending),
        settings,
        on_result=on_result,
        log_dir=Path(grading.out_dir) / LOG_FOLDER,
        on_note=grading.note,
        on_facts=grading.learn,
    )


def _confirm(grading: Recording, pending: Sequence[Pending], settings: run.RunSettings) -> None:
    """Grade again, one at a time, each student whose result was doubtful; record the new one.

    A time-out or a crash may come from a machine too busy at that moment: once the rest of
    the class is done, the student is graded again in a fresh job of their own, and that second
    result is the one recorded, whatever it says.
    """
    held = grading.held
    if not held:
        return
    grading.note(
        f"Grading {len(held)} student(s) again, one at a time, to confirm a time-out or crash "
        "before it is recorded."
    )
    again = [item for item in pending if item.student in held]
    _run(grading, again, replace(settings, jobs=1), grading.record_confirmed)
    cleared = len(again) - grading.confirmed
    grading.note(
        f"Graded again: {grading.confirmed} kept their time-out or crash; {cleared} did "
        "not (the first grading met a machine too busy), and their second result is recorded."
    )


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
    recording: Recording, submission: Submission, key: str | None
) -> RunResult | None:
    """Return the stored result to reuse for `submission`, or None to grade it."""
    if submission.failure is not None:
        return None  # a refusal or a failure of the grader's own is never kept: try again
    try:
        stored = resume.stored_result(recording.out_dir, submission, key)
    except Exception:
        return None  # a record too strange even for stored_result's checks: grade again
    if stored is not None and stored.has_status(recording.regrade):
        return None  # doubtful, or named by grade --regrade: graded again
    return stored


def _to_run(recording: Recording, pending: Iterable[Pending]) -> Iterator[Submission]:
    """Load each submission in turn and yield those to run; record the others at once.

    A stored result still valid is recorded (resumed) and a submission nothing of which
    can run waits for the hidden tests; only one submission's code is held at a time.
    """
    for item in pending:
        loaded = item if isinstance(item, Submission) else load_safely(item, recording.course)
        if loaded.student not in recording.held:  # said once, not again when confirming
            for flag in loaded.flags:
                recording.note(f"{loaded.student}: {flag}.")
        submission, key = _with_fingerprint(loaded, recording.version)
        if key is not None:
            recording.keys[submission.student] = bytes.fromhex(key)
        stored = _stored_result(recording, submission, key)
        if stored is not None:
            recording.record(stored, resumed=True)
        elif _not_runnable(submission):
            recording.waiting.append(_result_without_running(submission))
        else:
            yield submission
