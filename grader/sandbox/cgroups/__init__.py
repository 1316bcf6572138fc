"""Per-worker cgroups on whichever hierarchy the host mounts: v2 (unified) or v1.

    controllers = available()                          # what workers' groups hold here
    group = WorkerGroup.create(name, memory_bytes, pids)   # None where none can be made
    joins = group.open_procs()      # the worker writes "0" to each before any student code
    group.cpu_seconds(); group.memory_exhausted(); group.close()

A worker's group holds its memory (shared memory and tmpfs files included), its processes and
an equal share of the processor, and counts the processor time it used. cgroup v2 is the only
hierarchy of current distributions, container hosts and CI runners (`v2`: as root, in a
container's own cgroup namespace, or in a user's delegated subtree); v1 is kept as before
(`v1`). The hierarchy is chosen here, once per call, and nothing outside this package knows
which one it is, but for the run's summary (`version`).
"""

import contextlib
import functools
import os
import signal
import time
from pathlib import Path
from types import ModuleType

from grader.sandbox.cgroups import v1, v2
from grader.sandbox.cgroups.cgroupfs import processes
from grader.sandbox.clock import poll_until


def hierarchy() -> ModuleType:
    """Return the module of the hierarchy in use here: v2 where it has controllers, else v1."""
    return v2 if v2.mount_point() is not None else v1


def version() -> int:
    """Return the cgroup version in use here (1 or 2)."""
    return int(hierarchy().VERSION)


def available() -> tuple[str, ...]:
    """Return the controllers in which this process can give a worker a group; never raise."""
    found: tuple[str, ...] = hierarchy().available()
    return found


class WorkerGroup:
    """One worker's groups, one per usable controller; `close()` kills what is left inside."""

    def __init__(self, name: str, paths: dict[str, Path], kind: ModuleType) -> None:
        self.name = name
        self.paths = paths
        self.kind = kind
        # Precomputed so that attach_self, run between fork and exec, only opens and writes.
        folders = sorted(set(paths.values()))
        self._procs = tuple(os.fsencode(path / "cgroup.procs") for path in folders)

    @classmethod
    def create(cls, name: str, memory_bytes: int, pids: int) -> "WorkerGroup | None":
        """Create and limit the groups for worker `name`; None if no controller is usable."""
        kind = hierarchy()
        paths = kind.make(name, memory_bytes, pids)
        return None if paths is None else cls(name, paths, kind)

    def attach(self, pid: int) -> None:
        """Move process `pid` (not its existing children) into every group."""
        for procs in self._procs:
            fd = os.open(procs, os.O_WRONLY)
            try:
                os.write(fd, b"%d" % pid)
            finally:
                os.close(fd)

    def open_procs(self) -> list[int]:
        """Return descriptors of every group's `cgroup.procs`, open for writing.

        A process that writes "0" to one joins that group, even in another process namespace:
        the fork server hands them to each new worker, which joins before any student code.
        """
        return [os.open(procs, os.O_WRONLY | os.O_CLOEXEC) for procs in self._procs]

    def attach_self(self) -> None:
        """Move the calling process into every group (for `subprocess.Popen(preexec_fn=...)`)."""
        self.attach(os.getpid())

    def pids(self) -> list[int]:
        """Return the processes now in the groups."""
        found: set[int] = set()
        for path in self.paths.values():
            found.update(processes(path))
        return sorted(found)

    @functools.cached_property
    def counts_cpu(self) -> bool:
        """Say whether this group counts its processes' processor time (read once: it stays)."""
        return self.kind.cpu_seconds(self.paths) is not None

    def cpu_seconds(self) -> float:
        """Return the CPU time the group's processes used, or 0.0 where nothing counts it."""
        used: float | None = self.kind.cpu_seconds(self.paths)
        return used or 0.0

    def memory_exhausted(self) -> bool:
        """Return whether the group reached its memory limit and the kernel killed for it."""
        return bool(self.kind.memory_exhausted(self.paths))

    def _killed_all(self) -> bool:
        """Kill every process in the groups; say whether there was none left."""
        left = self.pids()
        for pid in left:  # again each round: a fork may have slipped in
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        return not left

    def close(self, wait: float = 2.0) -> None:
        """Kill every process left in the groups, then remove them; never raise."""
        with contextlib.suppress(Exception):
            self.kind.kill(self.paths)
            poll_until(self._killed_all, time.monotonic() + wait, longest=0.01)
        self.kind.remove(self.paths)
