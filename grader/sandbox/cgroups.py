"""Per-worker cgroup v1 limits: memory (swap included), process count and an equal CPU share.

Each worker gets `<mount>/<controller>/<our own group>/grader/<name>` in every usable controller
among memory, pids, cpu and cpuacct. The groups sit under the group this process is already in,
not at the hierarchy's root, so whatever limits the host puts on the grader still cover its
workers. The memory controller of cgroup v1 charges page cache and shared memory (tmpfs and
/dev/shm files, memfd, shared anonymous mappings) to the group that touched the pages, so
memory a student hides in a file still counts.
"""

import contextlib
import os
import signal
import time
from pathlib import Path

from grader.sandbox.clock import poll_until

ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("memory", "pids", "cpu", "cpuacct")
FOLDER = "grader"
# A file each controller must offer before we count on it.
_NEEDED = {
    "memory": "memory.limit_in_bytes",
    "pids": "pids.max",
    "cpu": "cpu.shares",
    "cpuacct": "cpuacct.usage",
}
EQUAL_SHARE = 1024  # the kernel's default weight: every worker gets the same part of the CPU


def _own_groups() -> dict[str, str]:
    """Return this process's group in each v1 controller, from /proc/self/cgroup."""
    groups: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return groups
    for line in lines:
        _, names, path = line.split(":", 2)
        for name in names.split(","):
            groups[name] = path
    return groups


def _parent(controller: str) -> Path:
    """Return the folder that holds the worker groups in `controller`."""
    own = _own_groups().get(controller, "/")
    return ROOT / controller / own.lstrip("/") / FOLDER


def _tidy(parent: Path) -> None:
    """Remove our shared `grader` folder once it is empty; a busy one refuses, which is fine."""
    with contextlib.suppress(OSError):
        parent.rmdir()


def available() -> tuple[str, ...]:
    """Return the controllers in which this process can create a group; never raise."""
    usable = []
    for controller in CONTROLLERS:
        parent = _parent(controller)
        probe = parent / f"probe-{os.getpid()}"
        try:
            probe.mkdir(parents=True, exist_ok=True)
            try:
                if (probe / _NEEDED[controller]).exists():
                    usable.append(controller)
            finally:
                probe.rmdir()
        except OSError:
            pass
        _tidy(parent)
    return tuple(usable)


def _make(path: Path) -> bool:
    """Create the group folder `path`; return whether it now exists as ours."""
    for _ in range(2):  # another worker's close() may remove `grader` between the two mkdirs
        try:
            path.mkdir(parents=True)
            return True
        except FileNotFoundError:
            continue
        except OSError:
            return False
    return False


def _write(path: Path, value: int | str) -> None:
    path.write_text(f"{value}\n")


def _read_int(path: Path) -> int:
    return int(path.read_text().split()[0])


class WorkerGroup:
    """One worker's groups, one per usable controller; `close()` kills what is left inside."""

    def __init__(self, name: str, paths: dict[str, Path]) -> None:
        self.name = name
        self.paths = paths
        # Precomputed so that attach_self, run between fork and exec, only opens and writes.
        self._procs = tuple(os.fsencode(path / "cgroup.procs") for path in paths.values())

    @classmethod
    def create(cls, name: str, memory_bytes: int, pids: int) -> "WorkerGroup | None":
        """Create and limit the groups for worker `name`; None if no controller is usable."""
        paths: dict[str, Path] = {}
        made: dict[str, Path] = {}
        for controller in available():
            path = _parent(controller) / name
            # Some systems mount cpu and cpuacct together: one folder then serves both.
            real = os.path.realpath(path.parent)
            if real not in made:
                if not _make(path):  # a name in use, or a refusal: half a group is no group
                    cls(name, paths).close()
                    return None
                made[real] = path
            paths[controller] = made[real]
        if not paths:
            return None
        group = cls(name, paths)
        try:
            group._limit(memory_bytes, pids)
        except OSError:
            group.close()  # a group that does not limit must not pass for one that does
            return None
        return group

    def _limit(self, memory_bytes: int, pids: int) -> None:
        if memory := self.paths.get("memory"):
            _write(memory / "memory.limit_in_bytes", memory_bytes)
            # Memory plus swap, set after memory (the kernel wants memsw >= memory): without it
            # a worker could push its pages to swap and go on growing.
            if (memory / "memory.memsw.limit_in_bytes").exists():
                _write(memory / "memory.memsw.limit_in_bytes", memory_bytes)
            # Some kernels refuse swappiness below the root; the memsw limit is what binds.
            with contextlib.suppress(OSError):
                _write(memory / "memory.swappiness", 0)
        if pid_path := self.paths.get("pids"):
            _write(pid_path / "pids.max", pids)
        if cpu := self.paths.get("cpu"):
            _write(cpu / "cpu.shares", EQUAL_SHARE)

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
            with contextlib.suppress(OSError, ValueError):
                found.update(int(line) for line in (path / "cgroup.procs").read_text().split())
        return sorted(found)

    @property
    def counts_cpu(self) -> bool:
        """Say whether this group counts its processes' processor time."""
        return "cpuacct" in self.paths

    def cpu_seconds(self) -> float:
        """Return the CPU time the group's processes used, or 0.0 without cpuacct."""
        try:
            return _read_int(self.paths["cpuacct"] / "cpuacct.usage") / 1e9
        except (KeyError, OSError, ValueError):
            return 0.0

    def memory_exhausted(self) -> bool:
        """Return whether the group reached its memory limit and the kernel killed for it."""
        memory = self.paths.get("memory")
        if memory is None:
            return False
        try:
            control = dict(
                line.split() for line in (memory / "memory.oom_control").read_text().splitlines()
            )
            if "oom_kill" in control:  # the precise count, on kernels since 4.13
                return int(control["oom_kill"]) > 0 or control.get("under_oom") == "1"
            # Older kernels: failcnt also counts times reclaim succeeded, so it errs towards yes.
            return _read_int(memory / "memory.failcnt") > 0
        except (OSError, ValueError):
            return False

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
            poll_until(self._killed_all, time.monotonic() + wait, longest=0.01)
        for path in set(self.paths.values()):
            with contextlib.suppress(OSError):
                path.rmdir()
            _tidy(path.parent)
