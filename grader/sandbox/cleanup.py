"""Remove a folder tree whatever a student left in it: deep, locked or full of links.

    remove_tree(path)    # never raises; whatever cannot be removed is quietly left behind

`shutil.rmtree` recurses (a few thousand nested folders raise RecursionError in Python 3.11),
gives up on a folder whose permissions were taken away, and raises on what it cannot remove.
This walks the tree with a list instead of recursion and keeps at most two folders open, so
depth costs neither stack nor file descriptors. Every folder is opened relative to its parent
with O_NOFOLLOW, so a symbolic link is removed, never followed, and a folder that lacks its
owner's rights gets them back before it is opened.
"""

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

_OPEN_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_OWNER_RIGHTS = stat.S_IRWXU


def remove_tree(path: str | os.PathLike[str]) -> None:
    """Remove `path` and everything under it, never following a link and never raising."""
    # Cleanup must never stop a batch: what cannot be removed stays behind, unreported.
    with contextlib.suppress(Exception):
        _remove(os.path.abspath(os.fspath(path)))


@contextlib.contextmanager
def temporary_folder(prefix: str) -> Iterator[Path]:
    """Yield a new private folder, removed with remove_tree afterwards whatever it holds."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield folder
    finally:
        remove_tree(folder)


@dataclass
class _Level:
    """One open level of the walk: which folder it is and the subfolders still to remove."""

    name: str  # its name in its parent folder
    identity: tuple[int, int]  # device and inode, to check that ".." leads back to it
    subfolders: list[tuple[str, int]] = field(default_factory=list)  # (name, mode)


def _remove(path: str) -> None:
    parent_path, name = os.path.split(path)
    if not name:  # the file system's root: never
        return
    parent = os.open(parent_path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        try:
            info = os.stat(name, dir_fd=parent, follow_symlinks=False)
        except FileNotFoundError:
            return
        if not stat.S_ISDIR(info.st_mode):
            os.unlink(name, dir_fd=parent)  # a file or a link: the link goes, never its target
            return
        top = _open_folder(parent, name, info.st_mode)
        if top is not None:
            _empty(top, name)
        os.rmdir(name, dir_fd=parent)
    finally:
        os.close(parent)


def _empty(top: int, name: str) -> None:
    """Remove everything inside the open folder `top`; close it, leaving the folder itself."""
    current = top
    try:
        identity = _identity(current)
        levels = [_Level(name, identity, _remove_files(current))]
        while levels:
            level = levels[-1]
            if level.subfolders:
                child_name, mode = level.subfolders.pop()
                child = _open_folder(current, child_name, mode)
                if child is None:
                    continue  # not ours to open: leave it, and its parent stays too
                os.close(current)
                current = child
                levels.append(_Level(child_name, _identity(child), _remove_files(child)))
                continue
            levels.pop()
            if not levels:
                return
            # Back up through "..", checked against the folder we came from: if the tree was
            # moved meanwhile, ".." leads elsewhere and the walk stops rather than wander.
            parent = os.open("..", _OPEN_FOLDER, dir_fd=current)
            os.close(current)
            current = parent
            if _identity(current) != levels[-1].identity:
                return
            with contextlib.suppress(OSError):
                os.rmdir(level.name, dir_fd=current)
    finally:
        os.close(current)


def _identity(folder: int) -> tuple[int, int]:
    info = os.fstat(folder)
    return info.st_dev, info.st_ino


def _remove_files(folder: int) -> list[tuple[str, int]]:
    """Remove every entry of `folder` that is not a folder; return its subfolders."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    subfolders = []
    for name in names:
        try:
            info = os.stat(name, dir_fd=folder, follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                subfolders.append((name, info.st_mode))
            else:
                os.unlink(name, dir_fd=folder)
        except OSError:
            continue  # gone already, or not ours to remove
    return subfolders


def _open_folder(parent: int, name: str, mode: int) -> int | None:
    """Open the subfolder `name` of `parent`, first giving its owner every right; None if not."""
    if mode & _OWNER_RIGHTS != _OWNER_RIGHTS:
        # follow_symlinks=False: had the folder been swapped for a link, its target keeps its
        # rights (Python then raises, on some systems even for a real folder: it stays locked).
        with contextlib.suppress(Exception):
            os.chmod(name, stat.S_IMODE(mode) | _OWNER_RIGHTS, dir_fd=parent, follow_symlinks=False)
    try:
        return os.open(name, _OPEN_FOLDER, dir_fd=parent)
    except OSError:
        return None
