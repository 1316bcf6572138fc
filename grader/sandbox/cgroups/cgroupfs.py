"""Reading and writing cgroup files, shared by both hierarchies."""

import contextlib
from pathlib import Path


def make_folder(path: Path) -> bool:
    """Create the group folder `path`; return whether it now exists as ours."""
    for _ in range(2):  # another worker's close() may remove a shared parent between mkdirs
        try:
            path.mkdir(parents=True)
            return True
        except FileNotFoundError:
            continue
        except OSError:
            return False
    return False


def write(path: Path, value: int | str) -> None:
    path.write_text(f"{value}\n")


def read_int(path: Path) -> int:
    return int(path.read_text().split()[0])


def read_keyed(path: Path) -> dict[str, str]:
    """Return a flat keyed file (`cpu.stat`, `memory.events`) as its keys and values."""
    pairs: dict[str, str] = {}
    for line in path.read_text().splitlines():
        key, _, value = line.partition(" ")
        pairs[key] = value.strip()
    return pairs


def processes(group: Path) -> list[int]:
    """Return the processes in `group` (none if it cannot be read)."""
    with contextlib.suppress(OSError, ValueError):
        return [int(line) for line in (group / "cgroup.procs").read_text().split()]
    return []
