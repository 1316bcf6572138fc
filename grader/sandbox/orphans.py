"""Processes the grader's own children left behind: adopted, then reaped, in one place.

A job adopts its workers' orphans (`adopt_orphans`), so a killed fork bomb's processes come to
it rather than to a first process that may never reap them; what comes is collected briefly
(`reap_briefly`, `reap_orphans`) so that no zombie counts against a worker user's limit.
"""

import ctypes
import functools
import os
import time
from pathlib import Path

from grader.sandbox.clock import poll_until

PR_SET_CHILD_SUBREAPER = 36  # from <linux/prctl.h>
REAP_SECONDS = 1.0  # how long killed children are given to finish dying (reap_orphans)


def adopt_orphans() -> None:
    """Make this process the parent of its workers' orphans, so that it can reap them.

    Without it, a killed fork bomb's processes go to the system's first process, which may
    never reap them (in a container), and they would count against the worker user's limit.
    """
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def children_of(pid: int) -> set[int]:
    """Return the process ids of the children of process `pid` (none if it cannot be read)."""
    try:
        tasks = Path(f"/proc/{pid}/task").iterdir()
        return {int(child) for task in tasks for child in (task / "children").read_text().split()}
    except (OSError, ValueError):
        return set()


def bubblewrap_children() -> set[int]:
    """Return this process's children that are bubblewrap processes."""
    found = set()
    for pid in children_of(os.getpid()):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        if stat[stat.find("(") + 1 : stat.rfind(")")] == "bwrap":
            found.add(pid)
    return found


def reap_briefly(pids: set[int], seconds: float) -> None:
    """Collect these processes if they became this one's children, waiting briefly for each.

    Bubblewrap leaves a process of its own below it, which comes to this process when it adopts
    orphans (a job does) and ends as its sandbox goes. No other child's status is taken.
    """
    deadline = time.monotonic() + seconds
    for pid in pids:
        poll_until(functools.partial(_reaped, pid), deadline, longest=0.005)


def _reaped(pid: int) -> bool:
    """Collect `pid` if it has ended; say whether it is gone (or was never this process's)."""
    try:
        return os.waitpid(pid, os.WNOHANG)[0] != 0
    except ChildProcessError:  # not ours: the system's first process reaps it
        return True


def reap_orphans() -> None:
    """Collect every child that has ended, waiting a little for killed ones to finish dying."""
    poll_until(_none_left, time.monotonic() + REAP_SECONDS, longest=0.005)


def _none_left() -> bool:
    """Collect every child that has ended; say whether this process has no child left."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return True
        if pid == 0:  # one is still running
            return False
