"""Load step: read a found submission into code units, without running any of it.

Notebooks are read by the same carry-forward rule the lessons use (course.assemble.step_work):
from each step, its exercise cells and the code cells the student added, in notebook order. So
the cells graded are the cells a student saw loaded by the next notebook, and the notes on a
submission (an unfinished step, two copies of a cell, a name used but defined nowhere that
carries forward) are the sentences the lessons' setup cell shows. Anything unreadable becomes
that student's result: a Submission with an `error` in the student's words and no units.
"""

from collections.abc import Iterable, Sequence
from pathlib import Path

from course.assemble import ExerciseCell, exercise_cells, notebook_exercise_cells
from course.manifest import Course, load_course
from course.notebooks import AssemblyError
from grader.discover import Found
from grader.model import CodeUnit, Submission

# A .py submission larger than this is not a student's answer to this lesson.
MAX_PYTHON_BYTES = 1_000_000


def load(found: Found, course: Course | None = None) -> Submission:
    """Return the Submission for one discovered entry (a grader.discover.Found)."""
    course = course or load_course()
    readers = {"lessons": _load_lessons, "notebook": _load_notebook, "python": _load_python}
    base = Submission(student=found.student, path=str(found.path), kind=found.kind, units=())
    try:
        units, problems = readers[found.kind](Path(found.path), course)
    except AssemblyError as error:
        return _unreadable(base, str(error))
    except _Unreadable as error:
        return _unreadable(base, str(error))
    except OSError as error:
        # Such as a folder its owner made unreadable: the student's to fix, like a broken file.
        name = Path(found.path).name
        return _unreadable(base, f"{name} could not be opened ({type(error).__name__}).")
    return Submission(
        student=base.student,
        path=base.path,
        kind=base.kind,
        units=tuple(units),
        problems=tuple(problems),
    )


class _Unreadable(Exception):
    """A submission file that cannot be turned into code; the message is for the student."""


def _unreadable(base: Submission, reason: str) -> Submission:
    return Submission(student=base.student, path=base.path, kind=base.kind, units=(), error=reason)


def _units_from_cells(cells: Iterable[ExerciseCell]) -> list[CodeUnit]:
    return [CodeUnit(label=c.label, filename=c.filename, source=c.source) for c in cells]


def _load_lessons(folder: Path, course: Course) -> tuple[list[CodeUnit], Sequence[str]]:
    assembly = exercise_cells(folder, course)
    if not assembly.cells:
        detail = assembly.problems[0] if assembly.problems else "no lesson notebook was found."
        raise _Unreadable(
            "None of your exercise cells could be read, so nothing could be graded. " + detail
        )
    return _units_from_cells(assembly.cells), assembly.problems


def _load_notebook(path: Path, course: Course) -> tuple[list[CodeUnit], Sequence[str]]:
    assembly = notebook_exercise_cells(path, course)
    return _units_from_cells(assembly.cells), assembly.problems


def _load_python(path: Path, _course: Course) -> tuple[list[CodeUnit], Sequence[str]]:
    name = path.name
    try:
        data = path.read_bytes()
    except OSError as error:
        raise _Unreadable(f"{name} could not be opened ({type(error).__name__}).") from None
    if len(data) > MAX_PYTHON_BYTES:
        raise _Unreadable(f"{name} is larger than {MAX_PYTHON_BYTES} bytes, too large to grade.")
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
