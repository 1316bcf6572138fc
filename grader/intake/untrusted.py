"""A submission read as the untrusted file tree it is: regular files inside it, never a link.

Students' work arrives as a repository, a zip, an LMS download or nbgrader's `submitted/` tree,
and each of those carries symbolic links, named pipes and device nodes as readily as
notebooks. Every read of a student's files goes through a `Folder`: it starts at a folder the
instructor named and walks below it one name at a time with O_NOFOLLOW, so no link is ever
followed and no path leaves the submission; it reads only regular files, at most a cap of
bytes each and in all, and says in a student's words why anything else is not read.

    with Folder.open(found.within, found.below) as folder:   # Refused if a part is a link
        data = folder.read("07-invoke-tool.ipynb", NOTEBOOK_BYTES)
"""

import errno
import os
import stat
from dataclasses import dataclass
from types import TracebackType

from grader.intake.entries import course_file, open_entry, reopen, shared

# What one file, and one submission in all, may hold: far above any honest answer to the
# lesson, and low enough that reading and parsing one keeps the grader's memory small (a
# notebook of nothing but `[],` parses to about 24 times its size).
NOTEBOOK_BYTES = 8_000_000
PYTHON_BYTES = 1_000_000
SUBMISSION_BYTES = 40_000_000
# A notebook holds a few thousand lists and objects; millions are a parser's memory, not work.
NOTEBOOK_CONTAINERS = 200_000
# Gradescope's upload is searched this deep and this wide at most.
SEARCH_DEPTH = 8
SEARCH_ENTRIES = 10_000

_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK and O_NOCTTY: reopening a checked regular file can never wait or take a terminal.
_FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_KINDS = (
    (stat.S_ISREG, "file"),
    (stat.S_ISDIR, "folder"),
    (stat.S_ISLNK, "link"),
    (stat.S_ISFIFO, "named pipe"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISCHR, "device"),
    (stat.S_ISBLK, "device"),
)


class Refused(Exception):
    """A file or folder of a submission that is not read; the message is for the student."""


def kind_of(mode: int) -> str:
    """Return what an lstat mode is, in a student's words: file, folder, link, named pipe..."""
    return next((name for test, name in _KINDS if test(mode)), "special file")


def refusal(name: str, kind: str) -> str:
    """Say why `name`, which is a `kind` and not a regular file, is not read."""
    if kind == "link":
        return f"{name} is a link to another file, not your own file: hand in the file itself."
    return f"{name} is a {kind}, not a file: hand in the file itself."


def too_large(name: str, cap: int) -> str:
    """Say why a file larger than `cap` bytes is not read."""
    advice = (
        "Clear its outputs (Edit → Clear Outputs of All Cells), save it and hand it in again."
        if name.endswith(".ipynb")
        else "Hand in only your answer to the lesson."
    )
    return (
        f"{name} is larger than {cap / 1_000_000:g} MB, far more than an answer to this lesson "
        f"needs, so it was not read. {advice}"
    )


def relative(path: str, start: str) -> str:
    """Return `path` below the folder `start`, with "/" between its parts ("" for `start`)."""
    below = os.path.relpath(path, start).replace(os.sep, "/")
    return "" if below == "." else below


@dataclass(frozen=True)
class Entry:
    """One name found in a submission, with what it is (see kind_of)."""

    path: str  # relative to the folder searched, with "/" between parts
    kind: str
    depth: int


class Folder:
    """An open folder of a submission, read without following links, within a byte budget."""

    def __init__(self, descriptor: int, name: str, budget: int = SUBMISSION_BYTES) -> None:
        self.descriptor = descriptor
        self.name = name  # how messages name the folder
        self.budget = budget  # bytes this submission may still have read
        # Files of the course (entries.course_files) that a hard link here must not be.
        self.course_files: frozenset[tuple[int, int]] = frozenset()
        self.shared: list[str] = []  # what was read of files with other names (hard links)

    @classmethod
    def open(cls, within: str, below: str = "") -> "Folder":
        """Open `below` (a relative path) inside the instructor's folder `within`.

        `within` is opened as given (the instructor named it, links and all); every part of
        `below` is the submission's own, and a link, or anything but a folder, is Refused.
        """
        descriptor = os.open(within, _FOLDER_FLAGS & ~os.O_NOFOLLOW)
        parts = _parts(below)
        name = parts[-1] if parts else os.path.basename(os.path.abspath(within))
        return cls(_walk(descriptor, below), name)

    def __enter__(self) -> "Folder":
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Let go of the folder."""
        if self.descriptor >= 0:
            os.close(self.descriptor)
            self.descriptor = -1

    def kind(self, name: str) -> str | None:
        """Return what `name` is in this folder (a link is a link), or None if it is not there."""
        kind = _kind_at(self.descriptor, name)
        return None if kind == "gone" else kind

    def names(self) -> list[str]:
        """Return the names in this folder, sorted."""
        return sorted(os.listdir(self.descriptor))

    def modified(self, name: str) -> float | None:
        """Return the modification time of the regular file `name`, or None for anything else."""
        try:
            status = os.stat(name, dir_fd=self.descriptor, follow_symlinks=False)
        except OSError:
            return None
        return status.st_mtime if stat.S_ISREG(status.st_mode) else None

    def read(self, name: str, cap: int) -> bytes:
        """Return the bytes of the regular file `name`; Refused if it is anything else or too big.

        The name is looked up once (open_entry): what is checked is what is read. Raise OSError
        if it cannot be opened (no permission to read it, say).
        """
        return self.read_with_status(name, cap)[0]

    def read_with_status(self, name: str, cap: int) -> tuple[bytes, os.stat_result]:
        """Return what `read` returns, and the fstat of the very file read (its times, say)."""
        handle, status = open_entry(self.descriptor, name)
        try:
            if not stat.S_ISREG(status.st_mode):  # a device is never opened: opening one can act
                raise Refused(refusal(name, kind_of(status.st_mode)))
            if status.st_nlink > 1:  # a hard link: refused if it is a course file, else said
                if (status.st_dev, status.st_ino) in self.course_files:
                    raise Refused(course_file(name))
                self.shared.append(shared(name, status.st_nlink))
            if status.st_size > cap:
                raise Refused(too_large(name, cap))
            if status.st_size > self.budget:
                raise Refused(_over_budget(name))
            descriptor = reopen(handle, _FILE_FLAGS)
        finally:
            os.close(handle)
        with open(descriptor, "rb", buffering=0, closefd=True) as stream:
            data = stream.read(min(cap, self.budget) + 1)  # a file may grow while it is read
        if len(data) > cap:
            raise Refused(too_large(name, cap))
        if len(data) > self.budget:
            raise Refused(_over_budget(name))
        self.budget -= len(data)
        return data, status

    def search(self, depth: int = SEARCH_DEPTH, entries: int = SEARCH_ENTRIES) -> list[Entry]:
        """Return what the folder holds, breadth first and by name; links are listed, not entered.

        At most `entries` names, none more than `depth` folders down; a folder that cannot be
        opened is listed and not looked into.
        """
        found: list[Entry] = []
        level = [""]
        for height in range(depth + 1):
            below: list[str] = []
            for prefix in level:
                for name in self._names(prefix):
                    if len(found) == entries:
                        return found
                    entry = Entry(prefix + name, self._kind_below(prefix + name), height)
                    found.append(entry)
                    if entry.kind == "folder":
                        below.append(entry.path + "/")
            level = below
        return found

    def _names(self, prefix: str) -> list[str]:
        """Return the sorted names in the folder `prefix` below this one, or none if unreadable."""
        try:
            descriptor = _walk(os.dup(self.descriptor), prefix)
        except (OSError, Refused):
            return []
        try:
            return sorted(os.listdir(descriptor))
        except OSError:
            return []
        finally:
            os.close(descriptor)

    def _kind_below(self, path: str) -> str:
        """Return what `path`, below this folder, is, without following any link on the way."""
        folder, _, name = path.rpartition("/")
        try:
            descriptor = _walk(os.dup(self.descriptor), folder)
        except (OSError, Refused):
            return "gone"
        try:
            return _kind_at(descriptor, name)
        finally:
            os.close(descriptor)


def _over_budget(name: str) -> str:
    return (
        f"{name} was not read: your submission's files are larger than "
        f"{SUBMISSION_BYTES / 1_000_000:g} MB in all, far more than this lesson needs. Clear "
        "the notebooks' outputs (Edit → Clear Outputs of All Cells), save them and hand in again."
    )


def _parts(below: str) -> list[str]:
    return [part for part in below.split("/") if part not in ("", ".")]


def _walk(descriptor: int, below: str) -> int:
    """Open each part of `below` in turn from the folder `descriptor`, which it takes over.

    Return the last folder's descriptor; on a Refused or OSError nothing is left open.
    """
    for part in _parts(below):
        descriptor = _enter(descriptor, part)
    return descriptor


def _enter(parent: int, part: str) -> int:
    """Open the folder `part` of `parent` without following a link; close `parent` either way."""
    try:
        if part == "..":
            raise Refused("A path that leads out of the submission is not followed.")
        kind = _kind_at(parent, part)
        if kind == "gone":
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), part)
        if kind != "folder":
            raise Refused(refusal(part, kind))
        return os.open(part, _FOLDER_FLAGS, dir_fd=parent)
    finally:
        os.close(parent)


def _kind_at(descriptor: int, name: str) -> str:
    """Return what `name` is in the folder open as `descriptor` ("gone" if it vanished)."""
    try:
        return kind_of(os.stat(name, dir_fd=descriptor, follow_symlinks=False).st_mode)
    except OSError:
        return "gone"
