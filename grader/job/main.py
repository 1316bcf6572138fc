"""One grading job: the hidden tests, read once, run for each submission of a list.

    python -m grader.job INPUT.jsonl OUTPUT_DIR    grade; write OUTPUT_DIR/<key>.json per submission
                                                  (and OUTPUT_DIR/facts.json once the hidden
                                                  tests are read: catalogue, isolation)
    python -m grader.job --list OUTPUT.json        write the catalogue of hidden tests, run nothing

The job runs only the grader's own code; student code runs in the sandbox workers it starts. It
reads its hidden tests (grader/job/suite.py, without pytest), sets up the fork server those
workers come from (grader/sandbox/server.py) and calls the tests for each submission
(grader/job/grading.py). Each result file is written atomically as soon
as its submission is done, so the parent can report progress and keep every finished result
even if this job dies later. A job never outlives the grader that started it
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

from grader.job.grading import grade
from grader.jobstart import parent_pid
from grader.sandbox.orphans import adopt_orphans

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
    try:
        return grade(argv[1], argv[2])
    except KeyboardInterrupt:  # stopped (stop_with_parent): the workers went with the server
        return INTERRUPTED


def leave(code: int) -> NoReturn:
    """End the job at once: every file is written and closed, every worker stopped.

    The interpreter's own tear-down (hundreds of hidden tests, every module) would take tens of
    milliseconds more, while the parent waits for this process to end.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
