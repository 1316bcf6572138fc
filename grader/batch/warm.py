"""Job processes started at a grading command's first line, so that their start overlaps its own.

A job's Python start and imports (its hidden tests, the sandbox client) take about 0.3 s, and
the grading command's own imports and the loading of the class take about as long again. So
`python -m grader grade` and Gradescope's `run_autograder` start their jobs before importing
anything else: each job imports, then waits on its standard input for the one line that says
what to grade (`python -m grader.job --await`). Dispatch hands that line to a waiting job
instead of starting a new one (grader/batch/dispatch.py); a job the run does not use reads the
end of its input and leaves.

Standard library and grader.jobstart only: this module is imported first.
"""

import os
import subprocess
import sys
from dataclasses import dataclass, field

from grader.jobstart import AWAIT, JOB_MODULE, job_environment, order_line

MAX_WARM_JOBS = 8  # started ahead at most; a run that wants more starts the rest itself
LEAVE_SECONDS = 5.0  # how long an unused job is given to read the end of its input


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
                    [sys.executable, "-m", JOB_MODULE, AWAIT],
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
            try:
                assert job.stdin is not None  # started with a pipe
                job.stdin.write(order_line(arguments, log_path, core))
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
