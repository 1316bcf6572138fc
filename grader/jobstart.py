"""How a job process is started and told what to grade: declared once, for both sides.

    parent (grader.batch)  job_environment(...)   the environment a job starts in
                           order_line(...)        the line that tells a waiting job what to grade
    child (grader.job)     order_of(line)         that line read back
                           chosen_core()          the processor the parent chose for the job
                           notifier()             what tells the parent that a file is ready

Standard library only, and nothing else of the grader's: grader.batch.warm imports it before
anything else, so that jobs start while the command still imports.
"""

import contextlib
import json
import os
from collections.abc import Callable, MutableMapping

JOB_MODULE = "grader.job"  # started as `python -m grader.job`
NOTIFY_VARIABLE = "GRADER_NOTIFY_FD"  # where a job finds the notification pipe
CORE_VARIABLE = "GRADER_JOB_CORE"  # the processor a job keeps itself and its workers on
PARENT_VARIABLE = "GRADER_PARENT_PID"  # the grader a job stops with
AWAIT = "--await"  # the job's argument: wait for the line that says what to grade


def job_environment(notify_fd: int | None = None, core: int | None = None) -> dict[str, str]:
    """Return the environment a job process starts in: this process's, and what a job needs.

    `notify_fd` is the pipe the job tells this process on; `core` the processor it keeps to
    (a job started ahead is told its processor later, in its order line).
    """
    # The job stops by itself if this process dies (grader.job.main.stop_with_parent).
    environment = dict(os.environ, **{PARENT_VARIABLE: str(os.getpid())})
    if notify_fd is not None:
        environment[NOTIFY_VARIABLE] = str(notify_fd)
    keep_to_core(environment, core)
    return environment


def keep_to_core(environment: MutableMapping[str, str], core: int | None) -> None:
    """Say in `environment` which processor a job keeps to: `core`, or none (any) if None."""
    environment.pop(CORE_VARIABLE, None)
    if core is not None:
        environment[CORE_VARIABLE] = str(core)


def order_line(arguments: list[str], log_path: str, core: int | None) -> bytes:
    """Return the line a waiting job is handed: its arguments, its log file and its processor."""
    order = {"arguments": arguments, "log": log_path, "core": core}
    return (json.dumps(order) + "\n").encode("utf-8")


def order_of(line: str) -> tuple[list[str], str, int | None]:
    """Read the line a waiting job is handed (see `order_line`)."""
    order = json.loads(line)
    return list(order["arguments"]), str(order["log"]), order["core"]


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
