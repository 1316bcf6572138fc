"""Deal submissions out to job processes, start them, and wake when any has news.

The parent of a grading run never polls: each job writes a byte to a shared notification pipe
as soon as it has written a result (or its facts), and the parent also watches every job's
process descriptor (pidfd), so it sleeps in one `select` until a result is ready or a job ends.
Where the kernel has no pidfds, it wakes every POLL_SECONDS to look at the jobs instead.
"""

import dataclasses
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.jobfiles import JobEntry, JobSettings, copy_job_input, deal_job_inputs
from grader.jobstart import JOB_MODULE, job_environment
from grader.model import CodeUnit, Submission
from grader.sandbox.inside.protocol import CodeUnitMessage

POLL_SECONDS = 0.5  # only where pidfds are missing: how often ended jobs are looked for
STOP_GRACE_SECONDS = 5.0
RESTARTS = 2  # how many times a job that died is started again for its ungraded students
KEPT_LOG_BYTES = 1 << 20  # the end of a log says why it died; the rest is not worth keeping


@dataclass
class JobProcess:
    """One job process: the submissions it grades (by index), and how far its results got."""

    number: int
    indexes: Sequence[int]  # in the order the job grades them
    process: subprocess.Popen[bytes]
    log: Path
    input: Path  # its input file (grader.jobfiles), from which a new job's is cut if it dies
    pidfd: int | None = None
    next: int = 0  # position in `indexes` of the first result not yet delivered
    ended: bool = False
    attempt: int = 0  # 0 for the run's first job of this number, then 1, 2... when started again


class Jobs:
    """The job processes of one run, the pipe they notify on, and the jobs started again."""

    def __init__(
        self,
        submissions: Iterable[Submission],
        count: int,
        settings: JobSettings,
        folder: Path,
    ) -> None:
        """Start `count` jobs over `submissions`, dealt out in turn, each with `settings`.

        `settings` is the job input's own part (limits and isolation: see grader.job).
        """
        self.folder = folder
        self.settings = settings
        self.submissions: list[Submission] = []  # as the parent keeps them: without their code
        (folder / "results").mkdir()
        # The writing end stays open here too: a job started again later is handed it.
        self.notify_read, self.notify_write = os.pipe()
        self.jobs: list[JobProcess] = []
        self.cores = cores_for_jobs(count)
        try:
            paths = [folder / f"job-{number}.jsonl" for number in range(max(1, count))]
            dealt = deal_job_inputs(paths, settings, self._entries(submissions))
            for number, indexes in enumerate(dealt):
                if indexes:  # fewer submissions than jobs: the extra ones are never started
                    self.jobs.append(self._start(number, indexes, paths[number], attempt=0))
        except BaseException:
            self.stop()
            self.close()
            raise

    def _entries(self, submissions: Iterable[Submission]) -> Iterator[JobEntry]:
        """Yield each submission's job entry, keeping it here without its code."""
        shared = _Shared({}, {})
        for index, submission in enumerate(submissions):
            self.submissions.append(_without_code(submission, shared))
            yield _entry(index, submission)

    def start_again(self, job: JobProcess, indexes: Sequence[int]) -> JobProcess | None:
        """Start a new job in place of `job`, which died, for `indexes`; None if it may not.

        A job is started again at most RESTARTS times in a run, so a machine that kills every
        job does not keep the run going forever. Its input is the dead job's, cut to `indexes`.
        """
        if job.attempt >= RESTARTS or not indexes:
            return None
        attempt = job.attempt + 1
        input_path = self.folder / f"job-{job.number}-again-{attempt}.jsonl"
        copy_job_input(job.input, input_path, set(indexes))
        again = self._start(job.number, indexes, input_path, attempt)
        self.jobs.append(again)
        return again

    def _start(
        self, number: int, indexes: Sequence[int], input_path: Path, attempt: int
    ) -> JobProcess:
        log = input_path.with_suffix(".log")
        arguments = [str(input_path), str(self.folder / "results")]
        core = self.cores[number] if number < len(self.cores) else None
        process = run_job(arguments, log, self.notify_write, core)
        pidfd = _pidfd(process.pid)
        return JobProcess(number, indexes, process, log, input_path, pidfd, attempt=attempt)

    def wait(self) -> None:
        """Sleep until a job has news (a result, its facts) or has ended."""
        pidfds = [job.pidfd for job in self.jobs if not job.ended and job.pidfd is not None]
        everyone_watched = len(pidfds) == sum(not job.ended for job in self.jobs)
        timeout = None if everyone_watched else POLL_SECONDS
        ready = select.select([self.notify_read, *pidfds], [], [], timeout)[0]
        if self.notify_read in ready:
            os.read(self.notify_read, 1 << 16)

    def ended(self) -> list[JobProcess]:
        """Return the jobs whose process has ended and that were not dealt with yet."""
        return [job for job in self.jobs if not job.ended and job.process.poll() is not None]

    def stop(self) -> None:
        """Stop every running job: SIGTERM lets it stop its workers first, SIGKILL if it lingers."""
        for job in self.jobs:
            if job.process.poll() is None:
                job.process.terminate()
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for job in self.jobs:
            try:
                job.process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                job.process.kill()
                job.process.wait()

    def close(self) -> None:
        """Wait for every job and let go of the descriptors."""
        for job in self.jobs:
            job.process.wait()
            if job.pidfd is not None:
                os.close(job.pidfd)
                job.pidfd = None
        os.close(self.notify_read)
        os.close(self.notify_write)


def _pidfd(pid: int) -> int | None:
    """Return a descriptor that becomes readable when process `pid` ends, or None."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def cores_for_jobs(count: int) -> list[int]:
    """Return the processor each of `count` jobs should keep to, or [] to let them all roam.

    A job and its worker take turns, never both at work: every tool call and every scenario is
    a round trip between them. On one processor a round trip is a switch between two processes;
    across two, each turn wakes the other processor, which costs several times more (measured
    on a 2-core virtual machine: 15 against 100 microseconds). So each job keeps to a processor
    of its own, and its workers with it. With more jobs than processors, the jobs would have
    to share, and the kernel balances them better than a fixed plan: nobody is pinned.
    """
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return []
    return allowed[:count] if len(allowed) > 1 and count <= len(allowed) else []


def run_job(
    arguments: list[str],
    log_path: Path,
    notify_fd: int | None = None,
    core: int | None = None,
) -> subprocess.Popen[bytes]:
    """Start `python -m grader.job` with its output going to a log file.

    `core`, if given, is the processor the job keeps itself and its workers on.
    """
    environment = job_environment(notify_fd, core)
    with open(log_path, "wb") as log:
        return subprocess.Popen(
            [sys.executable, "-m", JOB_MODULE, *arguments],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=environment,
            pass_fds=() if notify_fd is None else (notify_fd,),
        )


def how_it_ended(code: int) -> str:
    """Say how a job process ended, from its return code."""
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"ended with exit code {code}"


def log_tail(log: Path) -> bytes:
    """Return the end of a job's log (KEPT_LOG_BYTES at most); b"" if it cannot be read."""
    try:
        # O_NOFOLLOW: without bubblewrap a worker could have swapped the log for a link.
        descriptor = os.open(log, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(descriptor, "rb") as stream:
            stream.seek(max(0, os.fstat(descriptor).st_size - KEPT_LOG_BYTES))
            return stream.read(KEPT_LOG_BYTES)
    except OSError:
        return b""


def last_line(tail: bytes, limit: int = 200) -> str:
    """Return the last non-blank line of a log's tail, printable and cut to `limit` characters."""
    lines = [line for line in tail.decode("utf-8", "replace").splitlines() if line.strip()]
    if not lines:
        return ""
    line = "".join(c if c.isprintable() else "?" for c in lines[-1].strip())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def keep_log(tail: bytes, name: str, log_dir: Path | None) -> Path | None:
    """Write a job's log tail as `name` into `log_dir`; return the copy's path, or None."""
    if log_dir is None:
        return None
    try:
        kept = Path(log_dir) / name
        kept.parent.mkdir(parents=True, exist_ok=True)
        partial = kept.with_name(f".{kept.name}.partial")
        partial.write_bytes(tail)
        os.replace(partial, kept)
    except OSError:
        return None
    return kept


def _entry(index: int, submission: Submission) -> JobEntry:
    units: list[CodeUnitMessage] = [
        {"label": unit.label, "filename": unit.filename, "source": unit.source}
        for unit in submission.units
    ]
    return {"key": index, "units": units, "error": submission.error}


@dataclass(frozen=True)
class _Shared:
    """The units' names and the problems already kept, for students who have the same ones."""

    units: dict[tuple[CodeUnit, ...], tuple[CodeUnit, ...]]
    problems: dict[tuple[str, ...], tuple[str, ...]]


def _without_code(submission: Submission, shared: _Shared) -> Submission:
    """Return `submission` as the parent keeps it once dealt: its units' names, not their code.

    The reports name the cells that were read (Gradescope's upload checks), never their code.
    Most students have the same cells and the same problems, so those are kept once, in
    `shared`, and what the parent holds per student until the end is a few references.
    """
    units = tuple(CodeUnit(unit.label, unit.filename, "") for unit in submission.units)
    problems = submission.problems
    return dataclasses.replace(
        submission,
        units=shared.units.setdefault(units, units),
        problems=shared.problems.setdefault(problems, problems),
    )
