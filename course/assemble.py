"""The assembly mechanism: a student's exercise cells, in lesson order, run with the supplied code.

Later notebooks reuse the student's own earlier functions through `load_earlier_steps`, and the
grader builds a submission's `invoke_tool` through `exercise_cells` and `run_cells`. Both paths
read the same notebooks the same way, so what a student sees working is what gets graded.
"""

import json
import linecache
import tomllib
from dataclasses import dataclass
from pathlib import Path

from course import supplied

STEPS_FILE = Path(__file__).with_name("steps.toml")


@dataclass(frozen=True)
class Step:
    """One step of the lesson: a notebook, its exercise cells and the names they define."""

    number: int
    notebook: str
    title: str
    exercises: tuple[str, ...]
    defines: tuple[str, ...]
    categories: tuple[str, ...]

    @property
    def label(self):
        """How messages name this step to a student."""
        return f"Step {self.number} ({self.notebook})"


@dataclass(frozen=True)
class Course:
    """The lesson's assignment name and its steps in order."""

    assignment: str
    steps: tuple[Step, ...]

    def step_for_notebook(self, notebook_name):
        """Return the step taught in `notebook_name`, or None for a notebook outside the lesson."""
        return next((s for s in self.steps if s.notebook == notebook_name), None)


@dataclass(frozen=True)
class ExerciseCell:
    """The source of one exercise cell, tagged with where it came from."""

    step: Step
    cell_id: str
    source: str

    @property
    def filename(self):
        """A pseudo file name that makes tracebacks name the notebook and the cell."""
        return f"<{self.step.notebook}, cell {self.cell_id}>"

    @property
    def label(self):
        """How messages name this cell to a student."""
        return f"{self.step.label}, cell '{self.cell_id}'"


@dataclass(frozen=True)
class Assembly:
    """The exercise cells found, and the problems found on the way, in a student's words."""

    cells: tuple[ExerciseCell, ...]
    problems: tuple[str, ...]


class AssemblyError(Exception):
    """A problem with a student's notebooks, explained in a student's words."""

    def _render_traceback_(self):
        # IPython calls this instead of printing a traceback of the course's internals.
        return [f"⚠ {self}"]


def load_course(steps_file=STEPS_FILE):
    """Read the lesson's steps from the course manifest."""
    data = tomllib.loads(Path(steps_file).read_text(encoding="utf-8"))
    steps = tuple(
        Step(
            number=number,
            notebook=entry["notebook"],
            title=entry["title"],
            exercises=tuple(entry["exercises"]),
            defines=tuple(entry["defines"]),
            categories=tuple(entry["categories"]),
        )
        for number, entry in enumerate(data["steps"], start=1)
    )
    return Course(assignment=data["assignment"], steps=steps)


def supplied_names():
    """Return a fresh dict of the names the course supplies to every exercise cell."""
    return {name: getattr(supplied, name) for name in supplied.__all__}


def cell_id_of(cell):
    """Return a notebook cell's stable id: its nbgrader grade_id, else its nbformat id."""
    nbgrader = cell.get("metadata", {}).get("nbgrader", {})
    return nbgrader.get("grade_id") or cell.get("id")


def read_notebook_cells(path):
    """Return the cells of the notebook at `path`; raise AssemblyError if it cannot be read."""
    try:
        notebook = json.loads(Path(path).read_text(encoding="utf-8"))
        cells = notebook["cells"]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
        raise AssemblyError(
            f"{Path(path).name} could not be read as a notebook ({type(error).__name__}). "
            "Open it in JupyterLab; if it will not open, start again from a fresh copy "
            "of the lesson."
        ) from None
    if not isinstance(cells, list):
        raise AssemblyError(f"{Path(path).name} has no list of cells, so it is not a notebook.")
    return [cell for cell in cells if isinstance(cell, dict)]


def _source_of(cell):
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _cells_of_step(step, notebook_cells):
    """Return the step's exercise cells found in `notebook_cells` and the ids that are missing."""
    by_id = {cell_id_of(c): c for c in notebook_cells if c.get("cell_type") == "code"}
    found, missing = [], []
    for cell_id in step.exercises:
        if cell_id in by_id:
            found.append(ExerciseCell(step, cell_id, _source_of(by_id[cell_id])))
        else:
            missing.append(cell_id)
    return found, missing


def _missing_cell_message(step, cell_id):
    return (
        f"{step.label}: the exercise cell '{cell_id}' is missing; it was deleted, or its id "
        "was changed. Undo the deletion (Edit → Undo Cell Operation) or copy the cell back "
        "from a fresh copy of the lesson, then save the notebook."
    )


def exercise_cells(folder, course, *, before=None):
    """Collect the exercise cells of every step in `folder`, in lesson order.

    With `before` (a notebook name), stop at that step: a notebook loads only earlier steps.
    Problems (a missing notebook, a missing cell, an unreadable file) are collected, not raised,
    so one broken step does not hide the work done in the others.
    """
    cells, problems = [], []
    for step in course.steps:
        if step.notebook == before:
            break
        path = Path(folder) / step.notebook
        if not path.is_file():
            problems.append(f"{step.label} is missing from the folder {Path(folder).name}/.")
            continue
        try:
            notebook_cells = read_notebook_cells(path)
        except AssemblyError as error:
            problems.append(f"{step.label}: {error}")
            continue
        found, missing = _cells_of_step(step, notebook_cells)
        cells.extend(found)
        problems.extend(_missing_cell_message(step, cell_id) for cell_id in missing)
    return Assembly(tuple(cells), tuple(problems))


def notebook_exercise_cells(path, course):
    """Collect the exercise cells of every step found in one notebook, in lesson order."""
    notebook_cells = read_notebook_cells(path)
    cells = []
    for step in course.steps:
        cells.extend(_cells_of_step(step, notebook_cells)[0])
    if not cells:
        raise AssemblyError(
            f"{Path(path).name} holds none of the lesson's exercise cells, so there is nothing "
            "to grade in it."
        )
    return Assembly(tuple(cells), ())


def run_cells(cells, namespace):
    """Run exercise cells in `namespace`, as a notebook would; return the problems, if any.

    A cell is anything with `label`, `filename` and `source`, so the grader can run a whole
    `.py` submission through the same path as a notebook's cells.

    The supplied names are put in first and applied again after every cell, so a cell that
    redefines them cannot replace the course's copy.
    """
    problems = []
    namespace.update(supplied_names())
    for cell in cells:
        problem = _run_cell(cell, namespace)
        if problem:
            problems.append(problem)
        namespace.update(supplied_names())
    return tuple(problems)


def _run_cell(cell, namespace):
    lines = cell.source.splitlines(keepends=True)
    # Registering the source lets tracebacks show the student's own lines.
    linecache.cache[cell.filename] = (len(cell.source), None, lines, cell.filename)
    where = cell.label
    try:
        code = compile(cell.source, cell.filename, "exec")
    except SyntaxError as error:
        return f"{where} has a syntax error on line {error.lineno}: {error.msg}. Fix it and save."
    try:
        exec(code, namespace)
    except Exception as error:
        return (
            f"{where} stopped with {type(error).__name__} when it ran: {error}. "
            "Run that cell in its notebook to see where, fix it and save."
        )
    return None


def load_earlier_steps(namespace, notebook, *, folder=".", course=None):
    """Load the student's saved work from the steps before `notebook` into `namespace`.

    Notebooks call this with `globals()` in their first code cell. It prints what it loaded and,
    in plain words, anything that needs fixing; it raises only when `notebook` is not a step of
    the lesson. It returns None so that a notebook's setup cell shows only those printed lines.
    """
    course = course or load_course()
    if course.step_for_notebook(notebook) is None:
        raise AssemblyError(f"{notebook} is not a notebook of this lesson.")
    assembly = exercise_cells(folder, course, before=notebook)
    problems = assembly.problems + run_cells(assembly.cells, namespace)
    loaded = [name for cell in assembly.cells for name in cell.step.defines if name in namespace]
    if loaded:
        print("Loaded your earlier work:", ", ".join(dict.fromkeys(loaded)))
    for problem in problems:
        print("⚠", problem)
