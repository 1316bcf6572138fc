"""Discover step: turn the paths given on the command line into one entry per student.

Only names and their kinds are looked at here (`lstat`), never a file's content, and no link
below a path the instructor gave is followed: a student's folder, notebook or file that is a
link is found as that student's, with the reason it will not be read (`Found.refused`). A link
the instructor gave on the command line is followed when it leads to a folder of many
submissions (a class folder kept elsewhere), and refused like a student's when it stands for one
submission, since a shell pattern such as `class/*` passes students' links as they are.

A hand-in zip (`.zip`, on the command line or anywhere a notebook would be found) is found as
kind "zip", named for now from its file name; `discover`'s caller opens it (grader.intake.handins
names it by the student.json inside) before ids are checked.
"""

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from course.manifest import Course, load_course
from grader.intake.untrusted import kind_of, refusal, relative
from grader.model import UsageError

KINDS = ("lessons", "notebook", "python", "zip")
SUFFIXES = {".ipynb": "notebook", ".py": "python", ".zip": "zip"}
# A class folder is searched this many folders deep (nbgrader's tree needs three).
SEARCH_DEPTH = 6


@dataclass(frozen=True, slots=True)
class Found:
    """One student's submission as found on disk, before anything is read from it."""

    student: str
    # As found below the path the instructor gave. A string, not a Path: a class of thousands
    # is listed before anything is graded, and a Path object holds several times its text.
    path: str
    kind: str  # one of KINDS
    # The folder the instructor named, from which `path` is walked without following links;
    # "" for the path's own folder (a lessons folder) or its parent (a notebook or .py file).
    within: str = ""
    refused: str = ""  # why nothing of it is read (a link, say), in the student's words
    source: str = ""  # the hand-in zip it was unpacked from, as found ("" if none)

    @property
    def shown(self) -> str:
        """The path to name it by in messages: the zip it came from, else where it is."""
        return self.source or self.path

    @property
    def start(self) -> str:
        """The folder that reading starts from: `within`, or where the path itself lies."""
        if self.within:
            return self.within
        return self.path if self.kind == "lessons" else os.path.dirname(self.path) or "."

    @property
    def below(self) -> str:
        """The part of `path` below `start`, walked one name at a time ("" for `start` itself)."""
        return relative(self.path, self.start)


def discover(
    paths: Iterable[str | Path],
    course: Course | None = None,
    open_zips: Callable[[list[Found]], list[Found]] | None = None,
) -> list[Found]:
    """Return one Found per student under `paths`, sorted by student id.

    Zips (kind "zip") are handed, all at once, to `open_zips`, which returns what they hold as
    lessons folders named by their student (grader.intake.handins); without it they are left
    out. Raise UsageError for a missing path, for paths holding nothing to grade, and for two
    submissions that would share a student id (their results would overwrite each other).
    """
    course = course or load_course()
    found: list[Found] = []
    for path in map(Path, paths):
        if not os.path.lexists(path):
            raise UsageError(f"{path} does not exist")
        if path.name in ("", ".", ".."):
            # "." or "a/.." names no folder by itself: the id comes from the folder it means.
            path = Path(os.path.abspath(path))
        try:
            entries = _discover_argument(path, course)
        except OSError as error:
            raise UsageError(f"{path} cannot be read ({type(error).__name__})") from None
        if not entries:
            raise UsageError(f"{path} holds nothing to grade (no notebook, .py file or zip)")
        found.extend(entries)
    zips = [entry for entry in found if entry.kind == "zip"]
    found = [entry for entry in found if entry.kind != "zip"]
    if zips and open_zips is not None:
        found += open_zips(zips)
    if not found:
        raise UsageError("nothing to grade: give at least one submission")
    _reject_duplicates(found)
    return sorted(found, key=lambda entry: entry.student)


def _reject_duplicates(found: list[Found]) -> None:
    seen: dict[str, Found] = {}
    for entry in found:
        if entry.student in seen:
            raise UsageError(
                f"two submissions have the student id '{entry.student}': "
                f"{seen[entry.student].shown} and {entry.shown}"
            )
        seen[entry.student] = entry


def _discover_argument(path: Path, course: Course) -> list[Found]:
    """Discover what one command-line path holds; a link to a single submission is refused."""
    if path.is_symlink():
        if path.is_dir() and not _one_submission(path, course):
            return _discover_folder(str(path), "", course, depth=0)
        if path.is_dir() or path.suffix.lower() in SUFFIXES:
            return [_refused_link(path, str(path.parent))]
    if path.is_file():
        kind = SUFFIXES.get(path.suffix.lower())
        if kind is None:
            raise UsageError(
                f"{path} is neither a notebook (.ipynb), a Python file (.py) nor a hand-in zip"
            )
        return [Found(student_id(path.stem), str(path), kind)]
    if not path.is_dir():
        return []
    return _discover_folder(str(path), "", course, depth=0)


def _one_submission(path: Path, course: Course) -> bool:
    """Say whether the folder `path` is one student's: a lessons or nbgrader student folder."""
    return _is_lessons_folder(path, course) or os.path.lexists(path / course.assignment)


def _discover_folder(within: str, below: str, course: Course, depth: int) -> list[Found]:
    """Discover the folder `below` of `within`: one student's folder, or a folder of many."""
    folder = Path(within, below)
    name = folder.name
    if _is_lessons_folder(folder, course):
        return [Found(student_id(name), str(folder), "lessons", within)]
    assignment = folder / course.assignment
    kind = _lstat_kind(assignment)
    if kind == "folder":
        # An nbgrader student folder: submitted/<student>/<assignment>/.
        return [Found(student_id(name), str(assignment), "lessons", within)]
    if kind == "link":
        return [_refused_link(assignment, within, student=name)]
    found: list[Found] = []
    for child in _children(folder):
        found += _discover_child(within, _joined(below, child), course, depth + 1)
    return found


def _discover_child(within: str, below: str, course: Course, depth: int) -> list[Found]:
    """Discover one entry of a folder of submissions, by what it is, never through a link.

    A folder that cannot be looked into is a student: loading it then says so as their result,
    instead of the whole class stopping here.
    """
    path = Path(within, below)
    kind = _lstat_kind(path)
    suffix_kind = SUFFIXES.get(path.suffix.lower())
    if kind == "link":
        if suffix_kind is not None or path.is_dir():
            return [_refused_link(path, within)]
        return []
    if kind == "folder":
        if depth > SEARCH_DEPTH:
            return []
        try:
            return _discover_folder(within, below, course, depth)
        except OSError:
            return [Found(student_id(path.name), str(path), "lessons", within)]
    if suffix_kind is not None:  # a file, or a pipe or device named like one: load says which
        return [Found(student_id(path.stem), str(path), suffix_kind, within)]
    return []


def _refused_link(path: Path, within: str, student: str = "") -> Found:
    """Return the Found of a submission that is a link: its student, and why it is not read.

    A link named like a notebook or .py file stands for that file, any other for a folder;
    `student` names the student where the link's own name does not (nbgrader's assignment).
    """
    kind = "lessons" if student else SUFFIXES.get(path.suffix.lower(), "lessons")
    name = student or (path.name if kind == "lessons" else path.stem)
    return Found(student_id(name), str(path), kind, within, refusal(path.name, "link"))


def student_id(name: str) -> str:
    """Return the student id for a file or folder name: the name, as text that can be written.

    A byte that is not UTF-8 is kept as an escape (the byte 0xFF as the four characters
    backslash, x, f, f), so every report can be written; grader.intake.ids refuses the id for it.
    """
    return os.fsencode(name).decode("utf-8", errors="backslashreplace")


def _is_lessons_folder(path: Path, course: Course) -> bool:
    """Say whether `path` holds a step's notebook by name, whatever it is (a link included)."""
    return any(os.path.lexists(path / step.notebook) for step in course.steps)


def _lstat_kind(path: Path) -> str | None:
    try:
        return kind_of(os.lstat(path).st_mode)
    except FileNotFoundError:
        return None


def _joined(below: str, name: str) -> str:
    return f"{below}/{name}" if below else name


def _children(folder: Path) -> list[str]:
    """Return the names in `folder` worth looking at, in a fixed order (by name).

    Only names are held: a class of thousands would otherwise hold a Path object for every
    student, several times the memory of the listing that discover returns.
    """
    with os.scandir(folder) as entries:
        return sorted(entry.name for entry in entries if not entry.name.startswith((".", "_")))
