"""Run the hidden tests for many submissions, spread over `jobs` processes, each in isolation.

    results = run_submissions(submissions, RunSettings(jobs=2), on_result=print)

Student code never runs in this process, nor in the job processes: each job is one pytest
session of trusted code that starts a sandbox worker per submission. Results come back as JSON
files, one per submission, and become `RunResult`s here, in the order of `submissions`.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from grader.model import RunResult, TestOutcome

POLL_SECONDS = 0.02
STOP_GRACE_SECONDS = 5.0
LOST_REASON = (
    "The grader itself failed before it could finish testing your code. This is not "
    "your fault; tell your teacher, who can grade it again."
)


@dataclass(frozen=True)
class RunSettings:
    """How to run: job processes, the limits each submission is held to, and its isolation.

    `isolation` is "auto" (bubblewrap where it works, else the fallback; see
    grader/sandbox/containment.py) or "process" to force the fallback.
    """

    jobs: int = 1
    timeout: float = 10.0  # wall-clock seconds per submission
    test_timeout: float = 2.0  # wall-clock seconds per test
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


def hidden_tests():
    """Return every hidden test, in the order results list them."""
    with tempfile.TemporaryDirectory(prefix="grader-list-") as folder:
        listing = Path(folder) / "tests.json"
        _run_job(["--list", str(listing)], Path(folder) / "list.log").wait()
        catalogue = json.loads(listing.read_text(encoding="utf-8"))
    return tuple(HiddenTest(t["test_id"], t["category"], t["description"]) for t in catalogue)


def run_submissions(submissions, settings=RunSettings(), on_result=None):
    """Grade every submission; call `on_result` as each finishes; return results in input order."""
    results = [None] * len(submissions)
    with tempfile.TemporaryDirectory(prefix="grader-run-") as folder:
        folder = Path(folder)
        jobs = _start_jobs(submissions, settings, folder)
        pending = {index for job in jobs for index in job["indexes"]}

        def deliver(index, result):
            results[index] = result
            pending.discard(index)
            if on_result:
                on_result(result)

        try:
            while pending:
                finished_jobs = [job for job in jobs if job["process"].poll() is not None]
                _deliver_ready(submissions, folder, pending, deliver)
                for job in finished_jobs:
                    for index in sorted(pending & set(job["indexes"])):
                        if not (folder / "results" / f"{index}.json").exists():
                            deliver(index, _lost(submissions[index]))
                if pending:
                    time.sleep(POLL_SECONDS)
        except BaseException:
            # Interrupted: stop the jobs (and so their workers), then keep what they finished.
            _stop_jobs(jobs)
            _deliver_ready(submissions, folder, pending, deliver)
            raise
        for job in jobs:
            job["process"].wait()
    return results


def _deliver_ready(submissions, folder, pending, deliver):
    """Deliver the result of every pending submission whose result file has been written."""
    for index in sorted(pending):
        path = folder / "results" / f"{index}.json"
        if path.exists():
            deliver(index, _result(submissions[index], path))


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
        process = _run_job(arguments, folder / f"job-{number}.log")
        jobs.append({"indexes": indexes, "process": process})
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
        )
        for o in data["outcomes"]
    )
    return RunResult(submission, outcomes, data["status"], data["reason"])


def _lost(submission):
    """The result for a submission whose job stopped before grading it: every test is an error."""
    outcomes = tuple(
        TestOutcome(test.test_id, test.category, "error", test.description)
        for test in hidden_tests()
    )
    return RunResult(submission, outcomes, "error", LOST_REASON)
