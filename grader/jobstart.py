"""How a job process is started and tells its parent of results: declared once, for both sides.

    parent (grader.batch)  job_environment(...)   the environment a job starts in
    child (grader.job)     chosen_core()          the processor the parent chose for the job
                           notifier()             what tells the parent that a file is ready

Standard library only, and nothing else of the grader's: both sides import it.
"""

import contextlib
import os
from collections.abc import Callable

JOB_MODULE = "grader.job"  # started as `python -m grader.job`
NOTIFY_VARIABLE = "GRADER_NOTIFY_FD"  # where a job finds the notification pipe
CORE_VARIABLE = "GRADER_JOB_CORE"  # the processor a job keeps itself and its workers on
PARENT_VARIABLE = "GRADER_PARENT_PID"  # the grader a job stops with


def job_environment(notify_fd: int | None = None, core: int | None = None) -> dict[str, str]:
    """Return the environment a job process starts in: this process's, and what a job needs.

    `notify_fd` is the pipe the job tells this process on; `core` the processor it keeps to.
    """
    # The job stops by itself if this process dies (grader.job.main.stop_with_parent).
    environment = dict(os.environ, **{PARENT_VARIABLE: str(os.getpid())})
    if notify_fd is not None:
        environment[NOTIFY_VARIABLE] = str(notify_fd)
    environment.pop(CORE_VARIABLE, None)  # a grader run by a job's worker, say
    if core is not None:
        environment[CORE_VARIABLE] = str(core)
    return environment


def chosen_core() -> int | None:
    """Return the processor the parent chose for this job and its workers, if it chose one."""
    core = os.environ.get(CORE_VARIABLE, "")
    return int(core) if core.isdigit() else None


def parent_pid() -> int:
    """Return the grader process this job stops with."""
    named = os.environ.get(PARENT_VARIABLE, "")
    return int(named) if named.isdigit() else os.getppid()


def notifier() -> Callable[[], None]:
    """Return what tells the parent that a file is ready (does nothing if it did not ask)."""
    fd = os.environ.get(NOTIFY_VARIABLE)
    if fd is None or not fd.isdigit():
        return lambda: None
    number = int(fd)
    with contextlib.suppress(OSError):
        os.set_blocking(number, False)

    def notify() -> None:
        # A full pipe means the parent already has wake-ups waiting: nothing is lost.
        with contextlib.suppress(OSError):
            os.write(number, b".")

    return notify
