"""cgroup v2: a group per worker in the unified hierarchy, wherever the grader may make one.

The workers' groups sit beside the grader, under the group it runs in (G), so whatever limits
the host puts on G still cover them: as root on the host, in a container with a cgroup namespace
of its own (whose root is G), or in a user's delegated subtree (systemd's user@UID.service, or a
folder an administrator gave the user). Each the same way: a group may enable controllers for
groups below it only while it holds no process itself (the no-internal-processes rule), so the
processes in G first move into a leaf, G/LEAF, which keeps G's limits; then memory, pids and cpu
are enabled in G's cgroup.subtree_control, and each worker gets G/<name>. A grader started later
from that leaf finds its parent ready and uses it. The root group is exempt from the rule.

Per worker: memory.max, and memory.swap.max 0, so memory (tmpfs and shared memory included,
which v2 charges to the group that touched the pages) cannot move to swap and go on growing;
pids.max; the default cpu.weight, equal for all. Processor time is `cpu.stat`'s usage_usec, a
file every v2 group has; a kill for memory shows as `memory.events`' oom_kill; `cgroup.kill`
ends every process in the group at once (Linux 5.14).
"""

import contextlib
import functools
import os
import time
from pathlib import Path

from grader.sandbox.cgroups.cgroupfs import make_folder, processes, read_keyed, write
from grader.sandbox.clock import poll_until

VERSION = 2
CONTROLLERS = ("memory", "pids", "cpu")
LEAF = "grader-leaf"
EQUAL_WEIGHT = 100  # the kernel's default cpu.weight
REMOVE_SECONDS = 1.0  # a killed process leaves its group a moment after it dies
MOVE_ROUNDS = 3  # a process may fork while the others move: look again, a few times


def mount_point() -> Path | None:
    """Return where the unified hierarchy is mounted with controllers to give, or None."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        fields, _, described = line.partition(" - ")
        if described.split()[:1] == ["cgroup2"]:
            mount = Path(fields.split()[4])
            if _listed(mount / "cgroup.controllers") & set(CONTROLLERS):
                return mount
    return None


def own_group() -> Path | None:
    """Return the folder of the v2 group this process is in, or None without one."""
    mount = mount_point()
    if mount is None:
        return None
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("0::"):
            folder = mount / line[3:].strip().lstrip("/")
            return folder if folder.is_dir() else None
    return None


def _listed(path: Path) -> set[str]:
    with contextlib.suppress(OSError):
        return set(path.read_text().split())
    return set()


def _is_root(group: Path) -> bool:
    return not (group / "cgroup.type").exists()  # the one file every group but the root has


def base() -> Path | None:
    """Return the group under which workers' groups go, making it ready if need be; or None."""
    own = own_group()
    if own is None:
        return None
    parent = own.parent
    if own.name == LEAF and _listed(parent / "cgroup.subtree_control"):
        _enable(parent)  # another grader may have had fewer controllers to give
        return parent
    if not _is_root(own) and not _empty_into_leaf(own):
        return None
    _enable(own)
    return own if _listed(own / "cgroup.subtree_control") else None


def _empty_into_leaf(group: Path) -> bool:
    """Move every process of `group` into group/LEAF; say whether `group` holds none now."""
    leaf = group / LEAF
    try:
        leaf.mkdir(exist_ok=True)
    except OSError:
        return False  # not ours to arrange: a group of the host's, without delegation
    for _ in range(MOVE_ROUNDS):
        left = processes(group)
        if not left:
            return True
        for pid in left:
            with contextlib.suppress(OSError):  # gone meanwhile, or not ours to move
                write(leaf / "cgroup.procs", pid)
    return not processes(group)


def _enable(group: Path) -> None:
    """Enable, for the groups below `group`, each wanted controller it has to give."""
    offered = _listed(group / "cgroup.controllers")
    enabled = _listed(group / "cgroup.subtree_control")
    for controller in CONTROLLERS:
        if controller in offered and controller not in enabled:
            with contextlib.suppress(OSError):
                write(group / "cgroup.subtree_control", f"+{controller}")


def available() -> tuple[str, ...]:
    """Return the controllers that workers' groups get here; never raise."""
    try:
        found = base()
    except OSError:
        return ()
    if found is None or not _may_make_groups(found):
        return ()
    enabled = _listed(found / "cgroup.subtree_control")
    return tuple(controller for controller in CONTROLLERS if controller in enabled)


def _may_make_groups(group: Path) -> bool:
    """Say whether a group can be made under `group`: try it, as a worker's would be.

    A user without root sitting in the root group (no delegated subtree) finds controllers
    enabled there and may still make nothing below it.
    """
    probe = group / f"grader-probe-{os.getpid()}"
    try:
        probe.mkdir()
    except FileExistsError:
        pass
    except OSError:
        return False
    _removed(probe)
    return True


def make(name: str, memory_bytes: int, pids: int) -> dict[str, Path] | None:
    """Create and limit worker `name`'s group; None where it cannot be made whole."""
    controllers = available()
    found = base() if controllers else None
    if found is None:
        return None
    path = found / name
    if not make_folder(path):
        return None
    paths = dict.fromkeys(controllers, path)
    try:
        _limit(paths, memory_bytes, pids)
    except OSError:
        remove(paths)  # a group that does not limit must not pass for one that does
        return None
    return paths


def _limit(paths: dict[str, Path], memory_bytes: int, pids: int) -> None:
    if memory := paths.get("memory"):
        write(memory / "memory.max", memory_bytes)
        if (memory / "memory.swap.max").exists():  # absent where swap is not accounted
            write(memory / "memory.swap.max", 0)
    if pid_path := paths.get("pids"):
        write(pid_path / "pids.max", pids)
    if cpu := paths.get("cpu"):
        write(cpu / "cpu.weight", EQUAL_WEIGHT)


def cpu_seconds(paths: dict[str, Path]) -> float | None:
    """Return the processor time the group's processes used (every v2 group counts it)."""
    for path in paths.values():
        try:
            return int(read_keyed(path / "cpu.stat")["usage_usec"]) / 1e6
        except (OSError, KeyError, ValueError):
            return 0.0
    return None


def memory_exhausted(paths: dict[str, Path]) -> bool:
    """Return whether the kernel killed a process of the group for its memory limit."""
    memory = paths.get("memory")
    if memory is None:
        return False
    try:
        return int(read_keyed(memory / "memory.events").get("oom_kill", "0")) > 0
    except (OSError, ValueError):
        return False


def kill(paths: dict[str, Path]) -> None:
    """Kill every process in the group at once, forks made meanwhile included (Linux 5.14)."""
    for path in set(paths.values()):
        with contextlib.suppress(OSError):
            write(path / "cgroup.kill", 1)


def remove(paths: dict[str, Path]) -> None:
    """Remove the group once its killed processes have left it; never raise."""
    for path in set(paths.values()):
        poll_until(functools.partial(_removed, path), time.monotonic() + REMOVE_SECONDS, 0.01)


def _removed(path: Path) -> bool:
    """Try to remove `path`; say whether it is gone (a group still busy refuses)."""
    try:
        path.rmdir()
    except FileNotFoundError:
        return True
    except OSError:
        return not path.exists()
    return True
