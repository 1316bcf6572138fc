"""Job processes started at a grading command's first line, so that their start overlaps its own.

A job's Python start and imports (pytest, the plugin, the sandbox client) take about 0.3 s, and
the grading command's own imports and the loading of the class take about as long again. So
`python -m grader grade` and Gradescope's `run_autograder` start their jobs before importing
anything else: each job imports, then waits on its standard input for the one line that says
what to grade (`python -m grader.job --await`). Dispatch hands that line to a waiting job
instead of starting a new one (grader/dispatch.py); a job the run does not use reads the end of
its input and leaves.

Standard library only, and nothing of the grader's: this module is imported first.
"""

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import MutableMapping
from dataclasses import dataclass, field

NOTIFY_VARIABLE = "GRADER_NOTIFY_FD"  # where a job finds the notification pipe
CORE_VARIABLE = "GRADER_JOB_CORE"  # the processor a job keeps itself and its workers on
AWAIT = "--await"  # grader.job's argument: wait for the line that says what to grade
MAX_WARM_JOBS = 8  # started ahead at most; a run that wants more starts the rest itself
LEAVE_SECONDS = 5.0  # how long an unused job is given to read the end of its input


def job_environment(notify_fd: int | None = None, core: int | None = None) -> dict[str, str]:
    """Return the environment a job process starts in: this process's, and what a job needs.

    `notify_fd` is the pipe the job tells this process on; `core` the processor it keeps to
    (a job started ahead is told its processor later: grader.job.take_order).
    """
    # Plugins installed for other reasons (anyio, from Jupyter) would only slow the job down.
    # The job stops by itself if this process dies (see grader.job.stop_with_parent).
    environment = dict(
        os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", GRADER_PARENT_PID=str(os.getpid())
    )
    if notify_fd is not None:
        environment[NOTIFY_VARIABLE] = str(notify_fd)
    keep_to_core(environment, core)
    return environment


def keep_to_core(environment: MutableMapping[str, str], core: int | None) -> None:
    """Say in `environment` which processor a job keeps to: `core`, or none (any) if None."""
    environment.pop(CORE_VARIABLE, None)
    if core is not None:
        environment[CORE_VARIABLE] = str(core)


def chosen_core() -> int | None:
    """Return the processor the parent chose for this job and its workers, if it chose one.

    See grader.dispatch.cores_for_jobs and `keep_to_core`.
    """
    core = os.environ.get(CORE_VARIABLE, "")
    return int(core) if core.isdigit() else None


def keep_to(core: int | None) -> None:
    """Keep this process on `core` from now on (None: anywhere).

    A processor the system no longer offers is not an error: the job then runs wherever the
    kernel puts it, only a little slower.
    """
    if core is not None:
        with contextlib.suppress(AttributeError, OSError):
            os.sched_setaffinity(0, {core})


@dataclass
class WarmJobs:
    """Jobs started ahead, waiting to be told what to grade, and the pipe every job notifies on."""

    notify_read: int
    notify_write: int
    waiting: list["subprocess.Popen[bytes]"] = field(default_factory=list)
    claimed: bool = False  # a run took them (and the pipe, which it then closes)

    @classmethod
    def start(cls, count: int) -> "WarmJobs":
        """Start `count` jobs (at most MAX_WARM_JOBS), each waiting on its standard input."""
        notify_read, notify_write = os.pipe()
        warm = cls(notify_read, notify_write)
        environment = job_environment(notify_write)
        for _ in range(max(0, min(count, MAX_WARM_JOBS))):
            try:
                job = subprocess.Popen(
                    [sys.executable, "-m", "grader.job", AWAIT],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env=environment,
                    pass_fds=(notify_write,),
                )
            except OSError:
                break  # the run starts its jobs itself, as it would have anyway
            warm.waiting.append(job)
        return warm

    def claim(self) -> bool:
        """Take these jobs and the pipe for one run; False if a run already took them."""
        if self.claimed:
            return False
        self.claimed = True
        return True

    def hand(
        self, arguments: list[str], log_path: str, core: int | None
    ) -> "subprocess.Popen[bytes] | None":
        """Tell a waiting job what to grade; return it, or None if no job is waiting."""
        while self.waiting:
            job = self.waiting.pop(0)
            order = {"arguments": arguments, "log": log_path, "core": core}
            try:
                assert job.stdin is not None  # started with a pipe
                job.stdin.write((json.dumps(order) + "\n").encode("utf-8"))
                job.stdin.close()
            except OSError:  # it died while it waited: the next one, or a new job
                job.wait()
                continue
            return job
        return None

    def release(self) -> None:
        """Let every job still waiting go: it reads the end of its input and leaves."""
        for job in self.waiting:
            try:
                assert job.stdin is not None
                job.stdin.close()
            except OSError:
                pass
        for job in self.waiting:
            try:
                job.wait(timeout=LEAVE_SECONDS)
            except subprocess.TimeoutExpired:
                job.kill()
                job.wait()
        self.waiting = []

    def close(self) -> None:
        """Let the waiting jobs go, and close the pipe unless a run took it."""
        self.release()
        if not self.claimed:
            self.claimed = True
            os.close(self.notify_read)
            os.close(self.notify_write)


def order_of(line: str) -> tuple[list[str], str, int | None]:
    """Read the line a waiting job is handed: its arguments, its log file and its processor."""
    order = json.loads(line)
    return list(order["arguments"]), str(order["log"]), order["core"]


def jobs_asked(argv: list[str]) -> int:
    """Return how many jobs a `grade` command line asks for (1 unless --jobs says), 0 if unsure.

    Read before argparse runs, so only the plain forms count; anything else starts no job
    ahead, and the run starts its jobs itself, as it always could.
    """
    if len(argv) < 2 or argv[1] != "grade" or any(a in ("-h", "--help") for a in argv):
        return 0
    if any(a == "--merge" or a.startswith("--merge=") for a in argv):
        return 0
    count = "1"
    for index, word in enumerate(argv):
        if word == "--jobs" and index + 1 < len(argv):
            count = argv[index + 1]
        elif word.startswith("--jobs="):
            count = word.partition("=")[2]
    return int(count) if count.isdigit() else 0
