"""Load step: read a found submission into code units, without running any of it.

Notebooks are read by the same carry-forward rule the lessons use (course.carry.assemble.step_work):
from each step, its exercise cells and the code cells the student added, in notebook order. So
the cells graded are the cells a student saw loaded by the next notebook, and the notes on a
submission (an unfinished step, two copies of a cell, a name used but defined nowhere that
carries forward) are the sentences the lessons' setup cell shows. Every file is read through
grader.intake.untrusted: regular files inside the submission only, never through a link, within
size caps. Anything unreadable becomes that student's result: a Submission with an `error` in
the student's words and no units.
"""

import contextlib
import posixpath
from collections.abc import Iterable, Iterator, Sequence

from course.carry.assemble import (
    ExerciseCell,
    StepWork,
    assemble,
    missing_step,
    step_work,
    whole_notebook,
)
from course.carry.notebooks import AssemblyError, parse_notebook_cells
from course.manifest import Course, Step, load_course
from grader.intake.discover import Found
from grader.intake.entries import course_files
from grader.intake.untrusted import (
    NOTEBOOK_BYTES,
    NOTEBOOK_CONTAINERS,
    PYTHON_BYTES,
    Folder,
    Refused,
)
from grader.model import CodeUnit, Submission


def load(found: Found, course: Course | None = None) -> Submission:
    """Return the Submission for one discovered entry (a grader.intake.discover.Found)."""
    course = course or load_course()
    readers = {"lessons": _load_lessons, "notebook": _load_notebook, "python": _load_python}
    base = Submission(
        student=found.student, path=found.path, kind=found.kind, units=(), within=found.start
    )
    if found.refused:
        return _unreadable(base, found.refused)
    flags: list[str] = []
    try:
        units, problems = readers[found.kind](found, course, flags)
    except (AssemblyError, Refused, _Unreadable) as error:
        return _unreadable(base, str(error))
    except OSError as error:
        # Such as a folder its owner made unreadable: the student's to fix, like a broken file.
        name = posixpath.basename(found.path) or found.path
        return _unreadable(base, f"{name} could not be opened ({type(error).__name__}).")
    return Submission(
        student=base.student,
        path=base.path,
        kind=base.kind,
        units=tuple(units),
        problems=tuple(problems),
        within=base.within,
        flags=tuple(flags),
    )


class _Unreadable(Exception):
    """A submission file that cannot be turned into code; the message is for the student."""


def _unreadable(base: Submission, reason: str) -> Submission:
    return Submission(
        student=base.student,
        path=base.path,
        kind=base.kind,
        units=(),
        error=reason,
        within=base.within,
    )


def _units_from_cells(cells: Iterable[ExerciseCell]) -> list[CodeUnit]:
    return [CodeUnit(label=c.label, filename=c.filename, source=c.source) for c in cells]


def read_notebook(folder: Folder, name: str) -> list[dict[str, object]]:
    """Return the cells of the notebook `name` in `folder`; Refused or AssemblyError if none.

    The notebook is read within its caps, and one made of millions of lists and objects is
    refused before it is parsed: parsing holds about 24 times the bytes of such a file.
    """
    data = folder.read(name, NOTEBOOK_BYTES)
    if data.count(b"[") + data.count(b"{") > NOTEBOOK_CONTAINERS:
        raise Refused(
            f"{name} is not a lesson notebook as saved by Jupyter (it holds far more lists and "
            "objects than one does), so it was not read."
        )
    return parse_notebook_cells(data, name)


def _read_step(folder: Folder, step: Step) -> StepWork:
    """Return what `step` carries forward in `folder`; a missing or refused file is said."""
    if folder.kind(step.notebook) is None:
        return missing_step(step, folder.name)
    try:
        return step_work(step, read_notebook(folder, step.notebook))
    except (AssemblyError, Refused) as error:
        return StepWork(step, unreadable=str(error))
    except OSError as error:
        return StepWork(step, unreadable=f"it could not be opened ({type(error).__name__}).")


@contextlib.contextmanager
def _open(start: str, below: str, flags: list[str]) -> Iterator[Folder]:
    """Open a submission's folder whose hard links to course files are refused, and say others.

    What it read of files with other names (hard links) is added to `flags` as it closes.
    """
    with Folder.open(start, below) as folder:
        folder.course_files = course_files()
        try:
            yield folder
        finally:
            flags.extend(folder.shared)


def _load_lessons(
    found: Found, course: Course, flags: list[str]
) -> tuple[list[CodeUnit], Sequence[str]]:
    with _open(found.start, found.below, flags) as folder:
        assembly = assemble([_read_step(folder, step) for step in course.steps], course)
    if not assembly.cells:
        detail = assembly.problems[0] if assembly.problems else "no lesson notebook was found."
        raise _Unreadable(
            "None of your exercise cells could be read, so nothing could be graded. " + detail
        )
    return _units_from_cells(assembly.cells), assembly.problems


def _load_notebook(
    found: Found, course: Course, flags: list[str]
) -> tuple[list[CodeUnit], Sequence[str]]:
    folder_part, name = posixpath.split(found.below)
    with _open(found.start, folder_part, flags) as folder:
        cells = read_notebook(folder, name)
    assembly = whole_notebook(cells, name, course)
    return _units_from_cells(assembly.cells), assembly.problems


def _load_python(
    found: Found, _course: Course, flags: list[str]
) -> tuple[list[CodeUnit], Sequence[str]]:
    folder_part, name = posixpath.split(found.below)
    with _open(found.start, folder_part, flags) as folder:
        data = folder.read(name, PYTHON_BYTES)
    if b"\0" in data:
        raise _Unreadable(f"{name} is not a text file, so it cannot be Python code.")
    try:
        source = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _Unreadable(
            f"{name} is not saved as UTF-8 text. Save it again as UTF-8 and resubmit."
        ) from None
    if not source.strip():
        raise _Unreadable(f"{name} is empty, so there is nothing to grade.")
    return [CodeUnit(label=name, filename=name, source=source)], ()
