"""One look-up per name: the primitives every read and copy of a student's files goes through.

A name in a student's folder is looked up once, relative to the folder already open, without
following a link and without opening what it names (open_entry, an O_PATH handle); what fstat
says of that handle is checked, and the very same file is then opened for reading through the
handle (reopen). A student who swaps the name for a link, a pipe or another file between the
check and the read changes nothing: the check and the read are of one file.

A hard link is a second name of one file, which `lstat` and O_NOFOLLOW both take for a plain
file. One to a file of the course (a solution, a lesson as released) is refused; any other file
with more than one name is read and said to the instructor, since a tree copied with hard links
(`cp -al`, backups) has them for honest students too.
"""

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from grader.paths import LESSONS, SOLUTIONS

_PATH_FLAGS = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC


def open_entry(folder: int, name: str) -> tuple[int, os.stat_result]:
    """Look `name` up once in the open folder `folder`: a handle on what it is, and its fstat.

    The handle (O_PATH) is taken without following a link and without opening the file, so a
    device or pipe does nothing. The caller closes the handle.
    """
    handle = os.open(name, _PATH_FLAGS, dir_fd=folder)
    try:
        return handle, os.fstat(handle)
    except BaseException:
        os.close(handle)
        raise


def reopen(handle: int, flags: int) -> int:
    """Open the file that `handle` (from open_entry) holds with `flags`, by no name of its own.

    /proc/self/fd/N names the handle's own file, so no name in the student's folder is looked
    up again.
    """
    return os.open(f"/proc/self/fd/{handle}", flags)


def course_files(roots: Iterable[Path] = (SOLUTIONS, LESSONS)) -> frozenset[tuple[int, int]]:
    """Return the device and inode of every regular file of the course (solutions, release)."""
    found = set()
    for root in roots:
        for folder, _folders, names in os.walk(root):
            for name in names:
                try:
                    status = os.lstat(os.path.join(folder, name))
                except OSError:
                    continue
                if stat.S_ISREG(status.st_mode):
                    found.add((status.st_dev, status.st_ino))
    return frozenset(found)


def shared(name: str, links: int) -> str:
    """Say, for the instructor, that `name` was read though it has `links` names (hard links)."""
    return (
        f"{name} has {links} names on this disk (hard links): it was graded, but it is the "
        "same file as another name, which may be another person's"
    )


def course_file(name: str) -> str:
    """Say why a hard link to a file of the course is not read, in the student's words."""
    return (
        f"{name} is a hard link to a file of the course, not your own file: hand in a copy of "
        "your own work."
    )
