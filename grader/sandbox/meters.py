"""Where a worker's processor time is read: its cgroup's counter, or its process's own clock.

The cgroup counts every process in the group while it runs. Where the grader may make no
cgroup (a user without root on most hosts), the worker's /proc stat file, which the fork server
opens for it, counts the worker process and its threads, and the children it has waited for;
a child still running is not counted until it ends, which only a worker without the seccomp
filter (the only one that may start processes) could use, and the per-process processor limit
and the wall clock still hold there.
"""

import functools
import os
from collections.abc import Callable

from grader.sandbox import cgroups

# /proc/PID/stat's utime, stime, cutime and cstime, counted from the field after the name.
_TIMES = slice(11, 15)
_TICKS = os.sysconf("SC_CLK_TCK")
_STAT_BYTES = 1024


def process_seconds(stat: int) -> float:
    """Return the processor seconds in the open /proc stat file `stat`; OSError once it is gone.

    The process's name, in brackets, may hold spaces and brackets of its own (a process may
    rename itself): the fields are read after the last closing bracket.
    """
    text = os.pread(stat, _STAT_BYTES, 0)
    fields = text[text.rindex(b")") + 2 :].split()
    return sum(int(field) for field in fields[_TIMES]) / _TICKS


def worker_meter(
    group: "cgroups.WorkerGroup | None", stat: int | None
) -> Callable[[], float] | None:
    """Return what reads a worker's processor seconds: its cgroup, or its clock; or None."""
    if group is not None and group.counts_cpu:
        return group.cpu_seconds
    if stat is not None:
        return functools.partial(process_seconds, stat)
    return None
