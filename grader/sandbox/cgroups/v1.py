"""cgroup v1: a group per worker in each of memory, pids, cpu and cpuacct (see the package).

Each worker gets `<mount>/<controller>/<our own group>/grader/<name>` in every usable controller.
The groups sit under the group this process is already in, not at the hierarchy's root, so
whatever limits the host puts on the grader still cover its workers. The memory controller of
cgroup v1 charges page cache and shared memory (tmpfs and /dev/shm files, memfd, shared
anonymous mappings) to the group that touched the pages, so memory a student hides in a file
still counts.
"""

import contextlib
import os
from pathlib import Path

from grader.sandbox.cgroups.cgroupfs import make_folder, read_int, write

VERSION = 1
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


def make(name: str, memory_bytes: int, pids: int) -> dict[str, Path] | None:
    """Create and limit the groups for worker `name`; None where none can be made whole."""
    paths: dict[str, Path] = {}
    made: dict[str, Path] = {}
    for controller in available():
        path = _parent(controller) / name
        # Some systems mount cpu and cpuacct together: one folder then serves both.
        real = os.path.realpath(path.parent)
        if real not in made:
            if not make_folder(path):  # a name in use, or a refusal: half a group is no group
                remove(paths)
                return None
            made[real] = path
        paths[controller] = made[real]
    if not paths:
        return None
    try:
        _limit(paths, memory_bytes, pids)
    except OSError:
        remove(paths)  # a group that does not limit must not pass for one that does
        return None
    return paths


def _limit(paths: dict[str, Path], memory_bytes: int, pids: int) -> None:
    if memory := paths.get("memory"):
        write(memory / "memory.limit_in_bytes", memory_bytes)
        # Memory plus swap, set after memory (the kernel wants memsw >= memory): without it
        # a worker could push its pages to swap and go on growing.
        if (memory / "memory.memsw.limit_in_bytes").exists():
            write(memory / "memory.memsw.limit_in_bytes", memory_bytes)
        # Some kernels refuse swappiness below the root; the memsw limit is what binds.
        with contextlib.suppress(OSError):
            write(memory / "memory.swappiness", 0)
    if pid_path := paths.get("pids"):
        write(pid_path / "pids.max", pids)
    if cpu := paths.get("cpu"):
        write(cpu / "cpu.shares", EQUAL_SHARE)


def cpu_seconds(paths: dict[str, Path]) -> float | None:
    """Return the processor time the group used, or None where cpuacct does not count it."""
    if "cpuacct" not in paths:
        return None
    try:
        return read_int(paths["cpuacct"] / "cpuacct.usage") / 1e9
    except (OSError, ValueError):
        return 0.0


def memory_exhausted(paths: dict[str, Path]) -> bool:
    """Return whether the group reached its memory limit and the kernel killed for it."""
    memory = paths.get("memory")
    if memory is None:
        return False
    try:
        control = dict(
            line.split() for line in (memory / "memory.oom_control").read_text().splitlines()
        )
        if "oom_kill" in control:  # the precise count, on kernels since 4.13
            return int(control["oom_kill"]) > 0 or control.get("under_oom") == "1"
        # Older kernels: failcnt also counts times reclaim succeeded, so it errs towards yes.
        return read_int(memory / "memory.failcnt") > 0
    except (OSError, ValueError):
        return False


def kill(paths: dict[str, Path]) -> None:
    """Nothing to do at once: v1 has no cgroup.kill; the caller kills each process it lists."""


def remove(paths: dict[str, Path]) -> None:
    """Remove the groups (empty by now) and our shared folder once it is empty; never raise."""
    for path in set(paths.values()):
        with contextlib.suppress(OSError):
            path.rmdir()
        _tidy(path.parent)
