"""Copy a student's folder out of a place they can still write, without a race: for collect.

    copied = copy_folder(inbound, "ada+bounded_results+...", staging, limits, owner=uid)
    copied.changed      # the newest change time of what was copied: when it last changed
    copied.left_out     # what was not copied, and why

nbgrader's exchange is writable by every student, and a student keeps writing their own inbound
folder while collect runs: a copy that checks a name and then opens it can be made to open a
link, a pipe or another file put there in between. Here every entry is looked up once, relative
to its folder already open (grader.intake.entries.open_entry: no link followed, nothing
opened), checked by what fstat says of that very handle, and copied from it; no name is looked
up twice. Sizes are counted before a byte is written, at the larger of the apparent size and
the blocks allocated, so a sparse file counts at its apparent size. Only regular files and
folders are copied; a hard link (a file with other names) is left out.

The change time (ctime) of each folder and file is read after it is copied: a user cannot set
it, and any change to a file (its bytes, times, mode, names) moves it to the present, so the
newest is a time by which the copied content was final: collect's receipt.
"""

import os
import stat
from dataclasses import dataclass, field

from grader.intake.entries import open_entry, reopen
from grader.intake.untrusted import kind_of

CHUNK = 1 << 16
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
BLOCK = 512  # the unit of st_blocks


class NotCopied(Exception):
    """The folder is not copied at all; the message says why, for the instructor's log."""


@dataclass(frozen=True)
class CopyLimits:
    """What one copy may take: a larger file is left out, a larger folder is not copied."""

    file_bytes: int
    total_bytes: int
    entries: int = 1000
    depth: int = 8


@dataclass
class Copied:
    """What a copy took: its folder's owner, the newest change time, what it left out."""

    owner: int
    changed: float = 0.0
    left_out: list[str] = field(default_factory=list)
    counted: int = 0  # bytes counted against CopyLimits.total_bytes
    entries: int = 0


def copy_folder(
    parent: str, name: str, target: str, limits: CopyLimits, owner: int | None = None
) -> Copied:
    """Copy the folder `name` of `parent` to the new folder `target`; raise NotCopied if refused.

    `owner`, if given, is the user id the folder must belong to (the student it names).
    Raise OSError if it cannot be read; `target` may then hold part of the copy.
    """
    parent_folder = os.open(parent, _FOLDER_FLAGS)
    try:
        handle, status = open_entry(parent_folder, name)
    finally:
        os.close(parent_folder)
    try:
        if not stat.S_ISDIR(status.st_mode):
            raise NotCopied(f"{name} is a {kind_of(status.st_mode)}, not a folder")
        if owner is not None and status.st_uid != owner:
            raise NotCopied(
                f"{name} belongs to user id {status.st_uid}, not to the student it names "
                f"(user id {owner})"
            )
        copied = Copied(status.st_uid)
        _copy_folder(handle, target, name, limits, copied, 0)
        return copied
    finally:
        os.close(handle)


def _copy_folder(
    handle: int, target: str, shown: str, limits: CopyLimits, copied: Copied, depth: int
) -> None:
    """Copy the folder `handle` holds into the new folder `target`, entry by entry."""
    os.mkdir(target, 0o700)
    folder = reopen(handle, _FOLDER_FLAGS)
    try:
        for name in sorted(os.listdir(folder)):
            copied.entries += 1
            if copied.entries > limits.entries:
                raise NotCopied(f"{shown} holds more than {limits.entries} files and folders")
            child, status = open_entry(folder, name)
            try:
                where, path = f"{shown}/{name}", os.path.join(target, name)
                if stat.S_ISDIR(status.st_mode) and depth < limits.depth:
                    _copy_folder(child, path, where, limits, copied, depth + 1)
                elif stat.S_ISREG(status.st_mode):
                    _copy_file(child, status, path, where, limits, copied)
                else:
                    copied.left_out.append(f"{where} is a {kind_of(status.st_mode)}, not a file")
            finally:
                os.close(child)
        _changed(copied, os.fstat(folder))  # after its entries: a change meanwhile shows
    finally:
        os.close(folder)


def _copy_file(
    handle: int,
    status: os.stat_result,
    target: str,
    shown: str,
    limits: CopyLimits,
    copied: Copied,
) -> None:
    """Copy the regular file `handle` holds to `target`, if its size and links allow."""
    if status.st_nlink > 1:
        copied.left_out.append(f"{shown} is a hard link ({status.st_nlink} names), not a file")
        return
    if status.st_size > limits.file_bytes:
        copied.left_out.append(f"{shown} is larger than {limits.file_bytes} bytes")
        return
    counted = max(status.st_size, status.st_blocks * BLOCK)
    if copied.counted + counted > limits.total_bytes:
        raise NotCopied(f"{shown}: the folder holds more than {limits.total_bytes} bytes")
    copied.counted += counted
    source = reopen(handle, _READ_FLAGS)
    try:
        written = os.open(target, _WRITE_FLAGS, (status.st_mode & 0o755) | 0o600)
        with open(written, "wb", closefd=True) as stream:
            left = status.st_size + 1  # one byte more says the file grew while it was copied
            while left > 0 and (chunk := os.read(source, min(CHUNK, left))):
                left -= len(chunk)
                stream.write(chunk)
        if left == 0:
            raise NotCopied(f"{shown} grew while it was copied")
        _changed(copied, os.fstat(source))
    finally:
        os.close(source)


def _changed(copied: Copied, status: os.stat_result) -> None:
    copied.changed = max(copied.changed, status.st_ctime)
