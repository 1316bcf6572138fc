"""Run the hidden tests for many submissions, spread over `jobs` processes, each in isolation.

    results = run_submissions(submissions, RunSettings(jobs=2), on_result=print)

Student code never runs in this process, nor in the job processes: each job is one pytest
session of trusted code that starts a sandbox worker per submission. Results come back as JSON
files, one per submission, and become `RunResult`s here, in the order of `submissions`. A job
that dies costs only its unfinished submissions, whose results say so; its log is kept.
"""

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from grader.model import RunResult, Submission, TestOutcome
from grader.sandbox.cleanup import temporary_folder

POLL_SECONDS = 0.02
STOP_GRACE_SECONDS = 5.0
LOST_REASON = (
    "The grader itself failed before it could finish testing your code. This is not "
    "your fault; tell your teacher, who can grade it again."
)
UNREADABLE_RESULT_REASON = (
    "The grader itself failed to read the result of testing your code. This is not your "
    "fault; tell your teacher, who can grade it again."
)
LOG_FOLDER = "logs"  # where a dead job's log is kept, under the folder the caller names
KEPT_LOG_BYTES = 1 << 20  # the end of a log says why it died; the rest is not worth keeping


@dataclass(frozen=True)
class RunSettings:
    """How to run: job processes, the limits each submission is held to, and its isolation.

    `isolation` is "auto" (bubblewrap where it works, else the fallback; see
    grader/sandbox/containment.py) or "process" to force the fallback.
    """

    jobs: int = 1
    timeout: float = 10.0  # seconds charged per submission (grader.sandbox.clock)
    test_timeout: float = 2.0  # seconds charged per test
    output_limit: int = 65536  # bytes of printed output kept per test
    memory_mb: int = 512  # memory per worker, in MiB
    processes: int = 64  # processes and threads per worker
    isolation: str = "auto"


@dataclass(frozen=True)
class HiddenTest:
    """One hidden test as reports show it, known without running anything."""

    test_id: str
    category: str
    description: str
    case: str = ""


def hidden_tests():
    """Return every hidden test, in the order results list them."""
    with temporary_folder("grader-list-") as folder:
        listing = folder / "tests.json"
        _run_job(["--list", str(listing)], folder / "list.log").wait()
        catalogue = json.loads(listing.read_text(encoding="utf-8"))
    return tuple(
        HiddenTest(t["test_id"], t["category"], t["description"], t["case"]) for t in catalogue
    )


def run_submissions(
    submissions: list[Submission],
    settings: RunSettings = RunSettings(),
    on_result: Callable[[RunResult], None] | None = None,
    log_dir: Path | None = None,
    on_note: Callable[[str], None] | None = None,
) -> list[RunResult]:
    """Grade every submission; call `on_result` as each finishes; return results in input order.

    A job that dies or fails has its log copied to `log_dir` (when given) as job-N.log, and
    `on_note` (when given) gets one line for the instructor saying so and where the log is.
    """
    with temporary_folder("grader-run-") as folder:
        # A worker without bubblewrap may write in `folder` too; temporary_folder removes it
        # with remove_tree, which nothing a student leaves there can stop.
        batch = _Batch(submissions, folder, on_result, log_dir, on_note)
        batch.jobs = _start_jobs(submissions, settings, folder)
        batch.pending = {index for job in batch.jobs for index in job["indexes"]}
        try:
            while batch.pending:
                finished_jobs = [job for job in batch.jobs if job["process"].poll() is not None]
                batch.deliver_ready()
                for job in finished_jobs:
                    batch.end(job)
                if batch.pending:
                    time.sleep(POLL_SECONDS)
        except BaseException:
            # Interrupted: stop the jobs (and so their workers), then keep what they finished.
            _stop_jobs(batch.jobs)
            batch.deliver_ready()
            raise
        for job in batch.jobs:
            job["process"].wait()
            batch.end(job)  # one that failed after its last result is noted too
    return batch.results


class _Batch:
    """The results of one run_submissions call as they come in, and the jobs that give them."""

    def __init__(self, submissions, folder, on_result, log_dir, on_note):
        self.submissions = submissions
        self.folder = folder
        self.on_result = on_result
        self.log_dir = log_dir
        self.note = on_note or (lambda _line: None)
        self.results = [None] * len(submissions)
        self.jobs = []
        self.pending = set()

    def deliver(self, index, result):
        """Keep the result of submission `index` and pass it on."""
        self.results[index] = result
        self.pending.discard(index)
        if self.on_result:
            self.on_result(result)

    def deliver_ready(self):
        """Deliver the result of every pending submission whose result file has been written.

        A job grades its submissions in order, so only each job's next one is looked for: one
        file check per job per poll, however large the class.
        """
        for job in self.jobs:
            indexes = job["indexes"]
            while job["next"] < len(indexes):
                index = indexes[job["next"]]
                path = self.folder / "results" / f"{index}.json"
                if index in self.pending:
                    if not path.exists():
                        break
                    self.deliver(index, _read_result(self.submissions[index], path, self.note))
                job["next"] += 1

    def end(self, job):
        """Deal once with an ended job: its ungraded submissions are lost, and a failure noted."""
        if job["ended"]:
            return
        job["ended"] = True
        results = self.folder / "results"
        mine = sorted(self.pending & set(job["indexes"]))
        lost = [index for index in mine if not (results / f"{index}.json").exists()]
        tests = _hidden_tests_if_known() if lost else ()
        for index in lost:
            self.deliver(index, _lost(self.submissions[index], tests))
        code = job["process"].returncode
        if code == 0 and not lost:
            return
        what = f" before grading {len(lost)} of its students, now status error" if lost else ""
        kept = _keep_log(job["log"], self.log_dir)
        where = f"its log is {kept}" if kept else "its log was not kept"
        self.note(f"Job {job['number']} {_how_it_ended(code)}{what}; {where}.")


def _hidden_tests_if_known():
    """Return the hidden tests, or none if they cannot be listed: the grade lists them anyway."""
    # Whatever killed the job may stop the listing too; the lost results must still be given.
    try:
        return hidden_tests()
    except Exception:
        return ()


def _how_it_ended(code):
    """Say how a job process ended, from its return code."""
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"ended with exit code {code}"


def _keep_log(log, log_dir):
    """Copy the end of a job's log into `log_dir`; return the copy's path, or None."""
    if log_dir is None:
        return None
    try:
        # O_NOFOLLOW: without bubblewrap a worker could have swapped the log for a link.
        descriptor = os.open(log, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(descriptor, "rb") as stream:
            stream.seek(max(0, os.fstat(descriptor).st_size - KEPT_LOG_BYTES))
            data = stream.read(KEPT_LOG_BYTES)
        kept = Path(log_dir) / Path(log).name
        kept.parent.mkdir(parents=True, exist_ok=True)
        partial = kept.with_name(f".{kept.name}.partial")
        partial.write_bytes(data)
        os.replace(partial, kept)
    except OSError:
        return None
    return kept


def _stop_jobs(jobs):
    """Stop every running job: SIGTERM lets it stop its worker first, SIGKILL if it lingers."""
    for job in jobs:
        if job["process"].poll() is None:
            job["process"].terminate()
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    for job in jobs:
        try:
            job["process"].wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            job["process"].kill()
            job["process"].wait()


def _start_jobs(submissions, settings, folder):
    """Deal the submissions out to the jobs in turn and start each job."""
    (folder / "results").mkdir()
    count = max(1, min(settings.jobs, len(submissions)))
    limits = {
        "timeout": settings.timeout,
        "test_timeout": settings.test_timeout,
        "output_limit": settings.output_limit,
        "memory_mb": settings.memory_mb,
        "processes": settings.processes,
        "isolation": settings.isolation,
    }
    jobs = []
    for number in range(count if submissions else 0):
        indexes = list(range(number, len(submissions), count))
        entries = [_entry(index, submissions[index]) for index in indexes]
        input_path = folder / f"job-{number}.json"
        input_path.write_text(json.dumps({"limits": limits, "submissions": entries}), "utf-8")
        arguments = [str(input_path), str(folder / "results")]
        log = folder / f"job-{number}.log"
        process = _run_job(arguments, log)
        jobs.append(
            {
                "number": number,
                "indexes": indexes,
                "next": 0,  # position in `indexes` of the first result not yet delivered
                "process": process,
                "log": log,
                "ended": False,
            }
        )
    return jobs


def _run_job(arguments, log_path):
    """Start `python -m grader.job` with its output going to a log file."""
    # Plugins installed for other reasons (anyio, from Jupyter) would only slow the job down.
    # The job stops by itself if this process dies (see grader.job.stop_with_parent).
    environment = dict(
        os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", GRADER_PARENT_PID=str(os.getpid())
    )
    with open(log_path, "wb") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "grader.job", *arguments],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=environment,
        )


def _entry(index, submission):
    units = [asdict(unit) for unit in submission.units]
    return {"key": index, "units": units, "error": submission.error}


def _read_result(submission, path, note):
    """Return the RunResult in a job's result file; one that cannot be read is an error."""
    try:
        return _result(submission, path)
    except Exception as error:
        note(
            f"The result of {submission.student!r} could not be read ({type(error).__name__}); "
            "their status is error."
        )
        return RunResult(submission, (), "error", UNREADABLE_RESULT_REASON)


def _result(submission, path):
    data = json.loads(path.read_text(encoding="utf-8"))
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
        )
        for o in data["outcomes"]
    )
    return RunResult(submission, outcomes, data["status"], data["reason"])


def _lost(submission, tests):
    """The result for a submission whose job stopped before grading it: every test is an error."""
    outcomes = tuple(
        TestOutcome(test.test_id, test.category, "error", test.description, case=test.case)
        for test in tests
    )
    return RunResult(submission, outcomes, "error", LOST_REASON)
