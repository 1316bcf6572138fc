"""Discover step: turn the paths given on the command line into one entry per student."""

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from course.manifest import Course, load_course

KINDS = ("lessons", "notebook", "python")


class UsageError(Exception):
    """The command line names nothing gradable; the message is one line for the instructor."""


@dataclass(frozen=True, slots=True)
class Found:
    """One student's submission as found on disk, before anything is read from it."""

    student: str
    # Absolute. A string, not a Path: a class of thousands is listed before anything is graded,
    # and a Path object holds several times the memory of its text.
    path: str
    kind: str  # one of KINDS


def discover(paths: Iterable[str | Path], course: Course | None = None) -> list[Found]:
    """Return one Found per student under `paths`, sorted by student id.

    Raise UsageError for a missing path, for paths holding nothing to grade, and for two
    submissions that would share a student id (their results would overwrite each other).
    """
    course = course or load_course()
    found: list[Found] = []
    for path in map(Path, paths):
        if not path.exists():
            raise UsageError(f"{path} does not exist")
        if path.name in ("", ".", ".."):
            # "." or "a/.." names no folder by itself: the id comes from the folder it means.
            path = Path(os.path.abspath(path))
        try:
            entries = _discover_path(path, course, top_level=True)
        except OSError as error:
            raise UsageError(f"{path} cannot be read ({type(error).__name__})") from None
        if not entries:
            raise UsageError(f"{path} holds nothing to grade (no notebook or .py file)")
        found.extend(entries)
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
                f"{seen[entry.student].path} and {entry.path}"
            )
        seen[entry.student] = entry


def _discover_path(path: Path, course: Course, *, top_level: bool = False) -> list[Found]:
    if path.is_file():
        return _discover_file(path, top_level=top_level)
    if not path.is_dir():
        return []
    if _is_lessons_folder(path, course):
        return [Found(student_id(path.name), str(path), "lessons")]
    assignment = path / course.assignment
    if assignment.is_dir():
        # An nbgrader student folder: submitted/<student>/<assignment>/.
        return [Found(student_id(path.name), str(assignment), "lessons")]
    # A folder of many submissions, an nbgrader `submitted/` tree included.
    return [entry for child in _children(path) for entry in _discover_child(child, course)]


def _discover_child(child: Path, course: Course) -> list[Found]:
    """Discover one entry of a folder of submissions; one that cannot be looked into is a student.

    A student may have made their folder unreadable: loading it then says so as their result,
    instead of the whole class stopping here.
    """
    try:
        return _discover_path(child, course)
    except OSError:
        return [Found(student_id(child.name), str(child), "lessons")]


def _discover_file(path: Path, *, top_level: bool) -> list[Found]:
    suffix = path.suffix.lower()
    if suffix == ".ipynb":
        return [Found(student_id(path.stem), str(path), "notebook")]
    if suffix == ".py":
        return [Found(student_id(path.stem), str(path), "python")]
    if top_level:
        raise UsageError(f"{path} is neither a notebook (.ipynb) nor a Python file (.py)")
    return []


def student_id(name: str) -> str:
    """Return the student id for a file or folder name: the name, as text that can be written.

    A byte that is not UTF-8 is kept as an escape (the byte 0xFF as the four characters
    backslash, x, f, f), so every report can be written; grader.ids refuses the id for it.
    """
    return os.fsencode(name).decode("utf-8", errors="backslashreplace")


def _is_lessons_folder(path: Path, course: Course) -> bool:
    return any((path / step.notebook).is_file() for step in course.steps)


def _children(folder: Path) -> Iterator[Path]:
    """Yield the entries of `folder` worth looking at, in a fixed order (by name).

    Only the names are held at once: a class of thousands would otherwise hold a Path object
    for every student, several times the memory of the listing that discover returns.
    """
    with os.scandir(folder) as entries:
        names = sorted(
            entry.name
            for entry in entries
            if not entry.name.startswith((".", "_")) and not entry.is_symlink()
        )
    return (folder / name for name in names)
