"""Hand-in zips found by discovery, each named by its student and opened into a lessons folder.

    with unpacking() as zips:
        found = discover(paths, course, zips.open)   # zips.notes: lines for the summary

Every student's zip has the same default name (course/handin.py), and a browser saves a second
download as `… (1).zip`, so a zip is named by the login in its `student.json`, not by its file
name; a zip without a usable one is named from its file name as before, with a note. Each zip is
read once, as the untrusted file it is (grader.intake.untrusted: no link followed, within a cap),
and its notebooks unpacked into a scratch folder removed when grading ends.

Two zips naming one student: the one kept is the later on the instructor's disk, by the
modification time of the zip file itself (set when the instructor downloaded or copied it),
then the file name sorting last. Never a time inside the zip (its entries' dates, a file of the
student's): nothing the student writes decides a grade (docs/grading.md).
"""

import contextlib
import os
import posixpath
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from course.identity import IDENTITY_FILE
from course.manifest import Course, load_course
from grader.intake import archives, ids
from grader.intake.discover import Found
from grader.intake.untrusted import SUBMISSION_BYTES, Folder, Refused


@dataclass(frozen=True, slots=True)
class _Opened:
    """A zip, opened: the Found to grade, and what decides which of two zips is kept."""

    found: Found
    zip_path: str  # as discovered
    modified: int  # the zip file's mtime on this disk, in nanoseconds (0 if it was not read)
    named: bool  # named by its student.json (only such zips are taken for one student's)


class Unpacking:
    """Where one run's zips are unpacked, and its notes for the instructor's summary."""

    def __init__(self, scratch: Path, course: Course) -> None:
        self.scratch = scratch
        self.course = course
        self.notes: list[str] = []

    def open(self, zips: list[Found]) -> list[Found]:
        """Return the lessons folder of each zip, named by its student, one zip per student."""
        opened = [self._open_one(number, found) for number, found in enumerate(zips)]
        return [kept.found for kept in self._one_per_student(opened)]

    def _open_one(self, number: int, found: Found) -> _Opened:
        """Read one zip once; unpack its notebooks; name it. Never raise for what it holds."""
        if found.refused:  # a link: nothing of it is read, and the student is told why
            return _Opened(replace(found, kind="lessons"), found.path, 0, named=False)
        try:
            data, status = _read(found)
        except (Refused, OSError) as error:
            reason = str(error) if isinstance(error, Refused) else type(error).__name__
            refused = replace(found, kind="lessons", refused=_unread(found, reason))
            return _Opened(refused, found.path, 0, named=False)
        login, problem = archives.identity(data)
        problem = problem or ids.typed_problem(login)
        student = found.student if problem else login
        if problem:
            self.notes.append(
                f"{found.path}: its {IDENTITY_FILE} {problem}, so it is named from its file "
                f"name, '{found.student}'."
            )
        target = self.scratch / str(number) / student
        archives.unpack(data, found.path, target, self.course)
        unpacked = Found(student, str(target), "lessons", str(target), source=found.path)
        return _Opened(unpacked, found.path, status.st_mtime_ns, named=not problem)

    def _one_per_student(self, opened: list[_Opened]) -> list[_Opened]:
        """Keep one zip of each student their student.json names; say which and why."""
        by_student: dict[str, list[_Opened]] = {}
        for zip_found in opened:
            if zip_found.named:
                by_student.setdefault(zip_found.found.student, []).append(zip_found)
        dropped: set[str] = set()
        for student, group in by_student.items():
            if len(group) > 1:
                kept = max(group, key=_later)
                dropped.update(z.zip_path for z in group if z is not kept)
                self.notes.append(_choice(student, group, kept))
        # A zip named from its file name is left to discovery's check of ids: its file name
        # may be the default one every student's zip has, so it is no sign of one student.
        return [z for z in opened if z.zip_path not in dropped]


@contextlib.contextmanager
def unpacking(course: Course | None = None) -> Iterator[Unpacking]:
    """Yield an Unpacking whose scratch folder is removed when the block ends, however it ends."""
    with tempfile.TemporaryDirectory(prefix="grader-zips-") as scratch:
        yield Unpacking(Path(scratch), course or load_course())


def _read(found: Found) -> tuple[bytes, os.stat_result]:
    """Return the zip's bytes and the fstat of the very file read, through no link."""
    folder_part, name = posixpath.split(found.below)
    with Folder.open(found.start, folder_part) as folder:
        return folder.read_with_status(name, SUBMISSION_BYTES)


def _unread(found: Found, reason: str) -> str:
    """Say, in the student's words, why their zip was not read."""
    if reason.startswith(posixpath.basename(found.path)):
        return reason  # untrusted.py's own sentence, which names the file
    return f"{posixpath.basename(found.path)} could not be opened ({reason})."


def _later(zip_found: _Opened) -> tuple[int, str, str]:
    """Order zips of one student: later on this disk, then file name, then path, sorting last."""
    return (zip_found.modified, posixpath.basename(zip_found.zip_path), zip_found.zip_path)


def _choice(student: str, group: list[_Opened], kept: _Opened) -> str:
    """One line for the summary: the zips of one student, and which was kept and why."""
    names = sorted(z.zip_path for z in group)
    listed = ", ".join(names[:-1]) + " and " + names[-1]
    tied = sum(z.modified == kept.modified for z in group) > 1
    why = (
        "they have the same modification time on this disk, and its file name sorts last"
        if tied
        else "the latest modified on this disk"
    )
    return (
        f"{student}: {len(group)} zips name this student, {listed}; kept {kept.zip_path} ({why})."
    )
