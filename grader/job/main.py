"""One grading job: the hidden tests, read once, run for each submission of a list.

    python -m grader.job INPUT.jsonl OUTPUT_DIR    grade; write OUTPUT_DIR/<key>.json per submission
                                                  (and OUTPUT_DIR/facts.json once the hidden
                                                  tests are read: catalogue, isolation)
    python -m grader.job --list OUTPUT.json        write the catalogue of hidden tests, run nothing

The job runs only the grader's own code; student code runs in the sandbox workers it starts. Its
first step is to set up the fork server those workers come from (grader/sandbox/ server.py);
meanwhile it reads its hidden tests (grader/job/suite.py, without pytest) and then calls them
for each submission (grader/job/grading.py, grader/job/runner.py). Each result file is written
atomically as soon as its submission is done, so the parent can report progress and keep every
finished result even if this job dies later. A job never outlives the grader that started it
(see `stop_with_parent`).
"""

import ctypes
import os
import signal
import sys
import threading
import time
from types import FrameType
from typing import NoReturn

from grader.jobstart import AWAIT, keep_to_core, order_of, parent_pid
from grader.sandbox.opening import Opening
from grader.sandbox.orphans import adopt_orphans
from grader.sandbox.server import ForkServer

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
PARENT_POLL_SECONDS = 0.5
INTERRUPTED = 2  # the exit code of a job stopped by SIGTERM or SIGINT


def stop_with_parent() -> None:
    """Stop this job cleanly on SIGTERM or SIGINT, and get SIGTERM when its parent dies.

    Stopping raises KeyboardInterrupt, so the running submission's worker is killed on the way
    out and no half-graded result is written.
    """
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, _interrupt)
    parent = parent_pid()
    if not _ask_kernel_for_death_signal():
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before the kernel was asked
        os.kill(os.getpid(), signal.SIGTERM)


def _interrupt(_number: int, _frame: FrameType | None) -> NoReturn:
    # One stop is enough: a second signal must not cut short the cleanup of the first.
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, signal.SIG_IGN)
    raise KeyboardInterrupt


def _ask_kernel_for_death_signal() -> bool:
    """Ask Linux to send SIGTERM when the parent dies; say whether it agreed."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        status: int = libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        return status == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    """Where the kernel cannot help: poll until the parent is gone, then stop."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os.kill(os.getpid(), signal.SIGTERM)


def main(argv: list[str]) -> int:
    """Dispatch on the command line; return the job's exit status."""
    stop_with_parent()
    if argv[1] == "--list":
        from grader.job.suite import list_tests  # nothing to set up here

        return list_tests(argv[2])
    # The fork server's bubblewrap comes to this process when it adopts orphans: before it starts.
    adopt_orphans()
    # The set-up (about 0.1 s) goes on beside the reading of the hidden tests and the wait for
    # what to grade; the run's own isolation is asked for once it is known (Opening.require).
    with ForkServer.opening("auto") as opening:
        try:
            return _grade_with(opening, argv)
        except KeyboardInterrupt:  # stopped (stop_with_parent): the worker went with `opening`
            return INTERRUPTED


def _grade_with(opening: Opening, argv: list[str]) -> int:
    """Read the hidden tests, wait for what to grade if started ahead, and grade it."""
    # Imported only now, once the set-up is on its way: about 40 ms of the job's start.
    from grader.job.grading import grade
    from grader.job.runner import HiddenCall
    from grader.job.suite import hidden_calls

    if argv[1] != AWAIT:
        return grade(argv[1], argv[2], opening)
    # Started ahead (grader.batch.warm): the tests are read while the job waits for what to grade.
    # Its server is started only once told (grading.grade): the order comes about as the probe
    # ends, and a run may not need this job at all, or may forbid bubblewrap.
    try:
        tests: list[HiddenCall] | None = hidden_calls()
    except Exception:  # read again, and said in one line, once there is a log to say it in
        tests = None
    line = sys.stdin.readline()
    if not line:
        return 0  # the run did not need this job
    arguments, log_path, core = order_of(line)
    take_order(log_path, core)
    return grade(arguments[0], arguments[1], opening, tests)


def take_order(log_path: str, core: int | None) -> None:
    """Write to `log_path` from now on, and keep to `core`, as a job started for it would."""
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for stream in (1, 2):
        os.dup2(log, stream)
    os.close(log)
    keep_to_core(os.environ, core)


def leave(code: int) -> NoReturn:
    """End the job at once: every file is written and closed, every worker stopped.

    The interpreter's own tear-down (hundreds of hidden tests, every module) would take tens of
    milliseconds more, while the parent waits for this process to end.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
