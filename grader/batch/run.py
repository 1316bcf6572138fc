"""Run the hidden tests for many submissions, spread over `jobs` processes, each in isolation.

    results = run_submissions(submissions, RunSettings(jobs=2), on_result=print)

Student code never runs in this process, nor in the job processes: each job is one process
of trusted code that forks a sandbox worker per submission from its fork server.
Results come back as JSON files, one per submission, and become `RunResult`s here, in the order
of `submissions`; the jobs' facts (the hidden tests they read, the isolation in force)
come back the same way, before any result. A job that dies loses no finished result: a new job
grades the submissions it left (twice at most), after which they are errors that say so; its
log is kept. (grader/batch/dispatch.py starts and watches the job processes.)
"""

import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import overload

from grader.batch import dispatch
from grader.jobfiles import FACTS, CatalogueEntry, FactsFile, JobSettings, ResultFile, limits_data
from grader.model import HiddenTest, JobFacts, Limits, RunResult, Submission, TestOutcome
from grader.sandbox.cleanup import temporary_folder

LOST_REASON = (
    "The grader itself failed before it could finish testing your code. This is not "
    "your fault; tell your teacher, who can grade it again."
)
UNREADABLE_RESULT_REASON = (
    "The grader itself failed to read the result of testing your code. This is not your "
    "fault; tell your teacher, who can grade it again."
)


@dataclass(frozen=True)
class RunSettings:
    """How to run: job processes, the limits each submission is held to, and its isolation.

    `isolation` is "auto" (bubblewrap where it works, else the fallback; see
    grader/sandbox/containment.py), "bubblewrap" to require it, or "process" to force the
    fallback.
    """

    jobs: int = 1
    limits: Limits = field(default_factory=Limits)
    isolation: str = "auto"


def hidden_tests_of(catalogue: Iterable[CatalogueEntry]) -> tuple[HiddenTest, ...]:
    """Return the hidden tests a catalogue (as a job writes it: plain dicts) lists."""
    return tuple(
        HiddenTest(t["test_id"], t["category"], t["description"], t["case"], t.get("part", ""))
        for t in catalogue
    )


def hidden_tests() -> tuple[HiddenTest, ...]:
    """Return every hidden test, in the order results list them (a job that only collects them).

    A run learns them from its jobs' facts at no cost; this is for when no job runs.
    """
    with temporary_folder("grader-list-") as folder:
        listing = folder / "tests.json"
        dispatch.run_job(["--list", str(listing)], folder / "list.log").wait()
        catalogue: list[CatalogueEntry] = json.loads(listing.read_text(encoding="utf-8"))
        return hidden_tests_of(catalogue)


# Without `on_result`, the results in order; with it, a None for each (on_result took them).
@overload
def run_submissions(
    submissions: Iterable[Submission],
    settings: RunSettings = ...,
    on_result: None = None,
    log_dir: Path | None = None,
    on_note: Callable[[str], None] | None = None,
    on_facts: Callable[[JobFacts], None] | None = None,
) -> list[RunResult]: ...


@overload
def run_submissions(
    submissions: Iterable[Submission],
    settings: RunSettings,
    on_result: Callable[[RunResult], None],
    log_dir: Path | None = None,
    on_note: Callable[[str], None] | None = None,
    on_facts: Callable[[JobFacts], None] | None = None,
) -> list[None]: ...


def run_submissions(
    submissions: Iterable[Submission],
    settings: RunSettings = RunSettings(),
    on_result: Callable[[RunResult], None] | None = None,
    log_dir: Path | None = None,
    on_note: Callable[[str], None] | None = None,
    on_facts: Callable[[JobFacts], None] | None = None,
) -> Sequence[RunResult | None]:
    """Grade every submission; call `on_result` as each finishes, or return results in order.

    `submissions` are read once, in order, each handed to a job's input as it comes (it may be
    a generator that loads them one at a time); results carry them without their code.

    With `on_result`, each result is handed on and not kept (a class's outcomes never pile up
    in memory), and the list returned holds None for every submission.

    A job that dies or fails has its log copied to `log_dir` (when given) as job-N.log (or
    job-N-again-K.log), and `on_note` (when given) gets one line for the instructor saying so,
    where the log is and how it ends; a new job grades what a dead one left (see `_Batch.end`).
    `on_facts` (when given) is called once, before the first result, with the jobs' facts.
    """
    with temporary_folder("grader-run-") as folder:
        # A worker without bubblewrap may write in `folder` too; temporary_folder removes it
        # with remove_tree, which nothing a student leaves there can stop.
        job_settings: JobSettings = {
            "limits": limits_data(settings.limits),
            "isolation": settings.isolation,
        }
        # Each submission's code goes into a job's input as it comes; only the rest is kept.
        jobs = dispatch.Jobs(submissions, settings.jobs, job_settings, folder)
        batch = _Batch(jobs, on_result, log_dir, on_note)
        batch.on_facts = on_facts
        try:
            while batch.waiting():
                finished_jobs = jobs.ended()
                batch.deliver_ready()
                for job in finished_jobs:
                    batch.end(job)
                if batch.waiting():
                    jobs.wait()
        except BaseException:
            # Interrupted: stop the jobs (and so their workers), then keep what they finished.
            jobs.stop()
            batch.deliver_ready()
            jobs.close()
            raise
        jobs.close()
        for job in jobs.jobs:
            batch.end(job)  # one that failed after its last result is noted too
    return batch.results


class _Batch:
    """The results of one run_submissions call as they come in, and the jobs that give them."""

    def __init__(
        self,
        jobs: dispatch.Jobs,
        on_result: Callable[[RunResult], None] | None,
        log_dir: Path | None,
        on_note: Callable[[str], None] | None,
    ) -> None:
        self.jobs = jobs
        self.submissions = jobs.submissions  # as the parent keeps them: without their code
        self.folder = jobs.folder
        self.on_result = on_result
        self.log_dir = log_dir
        self.note = on_note or (lambda _line: None)
        self.results: list[RunResult | None] = [None] * len(self.submissions)
        # One byte per submission, 1 while its result is still to come: a set of ints would
        # hold about 70 bytes a student for the whole run.
        self.pending = bytearray(len(self.submissions))
        for job in jobs.jobs:
            for index in job.indexes:
                self.pending[index] = 1
        self.on_facts: Callable[[JobFacts], None] | None = None
        self.facts: JobFacts | None = None  # the first job's facts, once read

    def waiting(self) -> bool:
        """Say whether any submission's result is still to come."""
        return 1 in self.pending

    def read_facts(self) -> JobFacts | None:
        """Read the jobs' facts once one has written them; pass them on; return them or None."""
        if self.facts is None:
            path = self.folder / "results" / FACTS
            try:
                data: FactsFile = json.loads(path.read_text(encoding="utf-8"))
                self.facts = JobFacts(hidden_tests_of(data["catalogue"]), data["isolation"])
            except (OSError, ValueError, KeyError, TypeError):
                return None
            if self.on_facts:
                self.on_facts(self.facts)
        return self.facts

    def deliver(self, index: int, result: RunResult) -> None:
        """Pass the result of submission `index` on, or keep it when no one takes it."""
        if self.on_result is None:
            self.results[index] = result
        self.pending[index] = 0
        if self.on_result:
            self.on_result(result)

    def deliver_ready(self) -> None:
        """Deliver the result of every pending submission whose result file has been written.

        A job grades its submissions in order, so only each job's next one is looked for: one
        file check per job per poll, however large the class.
        """
        for job in self.jobs.jobs:
            indexes = job.indexes
            while job.next < len(indexes):
                index = indexes[job.next]
                path = self.folder / "results" / f"{index}.json"
                if self.pending[index]:
                    if not path.exists():
                        break
                    self.read_facts()  # written before any result: so known before it
                    self.deliver(index, _read_result(self.submissions[index], path, self.note))
                job.next += 1

    def end(self, job: dispatch.JobProcess) -> None:
        """Deal once with an ended job: a new job grades what it left, or it is lost; say so.

        A job dies for the machine's reasons, not a student's (student code runs in workers
        it cannot reach the job from), so its ungraded students go to a new job; only when
        that has happened dispatch.RESTARTS times is what is left lost, each such student an error.
        """
        if job.ended:
            return
        job.ended = True
        results = self.folder / "results"
        mine = sorted(index for index in job.indexes if self.pending[index])
        left = [index for index in mine if not (results / f"{index}.json").exists()]
        again = self.jobs.start_again(job, left)
        if again is None:
            tests = self.hidden_tests_if_known() if left else ()
            for index in left:
                self.deliver(index, _lost(self.submissions[index], tests))
        code = job.process.returncode
        if code == 0 and not left:
            return
        tail = dispatch.log_tail(job.log)
        kept = dispatch.keep_log(tail, Path(job.log).name, self.log_dir)
        where = f"its log is {kept}" if kept else "its log was not kept"
        last = dispatch.last_line(tail)
        said = f" It ends: {last}" if last else ""
        what = ""
        if left:
            then = "a new job grades them" if again else "now status error"
            what = f" before grading {len(left)} of its students, {then}"
        name = f"Job {job.number}" + (" (started again)" if job.attempt else "")
        self.note(f"{name} {dispatch.how_it_ended(code)}{what}; {where}.{said}")

    def hidden_tests_if_known(self) -> tuple[HiddenTest, ...]:
        """Return the hidden tests, or none if they cannot be known: the grade lists them anyway."""
        facts = self.read_facts()
        if facts is not None:
            return facts.hidden_tests
        # Whatever killed the job may stop the listing too; the lost results must still be given.
        try:
            return hidden_tests()
        except Exception:
            return ()


def _read_result(submission: Submission, path: Path, note: Callable[[str], None]) -> RunResult:
    """Return the RunResult in a job's result file; one that cannot be read is an error."""
    try:
        return _result(submission, path)
    except Exception as error:
        note(
            f"The result of {submission.student!r} could not be read ({type(error).__name__}); "
            "their status is error."
        )
        return RunResult(submission, (), "error", UNREADABLE_RESULT_REASON)


def _result(submission: Submission, path: Path) -> RunResult:
    data: ResultFile = json.loads(path.read_text(encoding="utf-8"))
    # Interned, the ids and sentences that every student's outcomes repeat are stored once, so
    # the memory held per graded student stays small however large the class.
    outcomes = tuple(
        TestOutcome(
            test_id=sys.intern(o["test_id"]),
            category=sys.intern(o["category"]),
            status=sys.intern(o["status"]),
            description=sys.intern(o["description"]),
            output=o["output"],
            case=sys.intern(o["case"]),
            example=o.get("example", ""),  # results of a job from before generated tests
            taught=o.get("taught", ""),
            part=sys.intern(o.get("part", "")),
            decided_by=o.get("decided_by", ""),  # results of a job from before it was kept
        )
        for o in data["outcomes"]
    )
    given = data.get("seconds")
    seconds = float(given) if type(given) is float or type(given) is int else None
    return RunResult(submission, outcomes, data["status"], data["reason"], seconds)


def _lost(submission: Submission, tests: Iterable[HiddenTest]) -> RunResult:
    """The result for a submission whose job stopped before grading it: every test is an error."""
    outcomes = tuple(
        TestOutcome(
            test.test_id, test.category, "error", test.description, case=test.case, part=test.part
        )
        for test in tests
    )
    return RunResult(submission, outcomes, "error", LOST_REASON)
