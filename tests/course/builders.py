"""What the course's tests build again and again, built once here.

- `COURSE` and `SOLUTIONS`: the manifest, and the solution notebooks of its assignment;
- `reference` and `reference_namespace`: the reference answers, loaded from the solution
  notebooks exactly as a later notebook loads a student's earlier steps; `with_cell` runs a
  student's version of one exercise cell among them;
- notebooks as a student saves them: `exercise_cell`, `solution_cell`, `own_cell`,
  `course_cell`, `pasted_exercise_cell`, `write_notebook`, and `write_lesson` (or
  `write_lesson_with` one step's notebook of the test's own) or `copy_solutions` for a whole
  lesson; `record_check_now`, a check cell's record of what it checked;
- `load_lesson`: a saved lesson loaded as the setup cell loads it;
- `failure_of`: the first miss a visible check reports;
- a student's function not written yet (`unfinished`), and a `call_once` that retries
  (`retrying_call_once`) (exercise cells with a bug of their own are in tests/student_mistakes.py);
- `part` and `parts`: the widgets inside an explorer, found by their CSS class.
"""

import json
from pathlib import Path

from course.carry.assemble import ExerciseCell, exercise_cells, read_step
from course.carry.execute import run_cells
from course.carry.history import record_check, saved_digest
from course.manifest import load_course
from grader.paths import SOLUTIONS as SOLUTIONS_ROOT

COURSE = load_course()
SOLUTIONS = SOLUTIONS_ROOT / COURSE.assignment


# The reference answers.


def reference_namespace():
    """Return a fresh notebook namespace holding the reference functions of every graded step."""
    assembly = exercise_cells(SOLUTIONS, COURSE)
    assert assembly.problems == ()
    namespace = {}
    assert run_cells(assembly.cells, namespace) == ()
    return namespace


def reference(name):
    """Return the reference function `name` (such as "budget_error"), freshly loaded."""
    return reference_namespace()[name]


def with_cell(namespace, step, source, cell_id=None):
    """Run `source` in `namespace` as the exercise cell of `step` (its first, unless `cell_id`
    names another), as a student's notebook runs it; return the namespace.

    Run as a cell, a function has its source on record, as the checks that read it expect.
    """
    cell = ExerciseCell(step, cell_id or step.exercises[0], source)
    assert run_cells([cell], namespace) == ()
    return namespace


def load_lesson(folder):
    """Load every graded step saved in `folder` as step 7's setup cell does; return its namespace
    and every problem, the assembly's and the run's."""
    assembly = exercise_cells(folder, COURSE)
    namespace = {}
    return namespace, assembly.problems + run_cells(assembly.cells, namespace)


def failure_of(check, function):
    """Return the first miss `check` reports for `function`; fail the test if every case passes."""
    report = check(function)
    assert not report.ok, "the check passed"
    return report.failure


# Students' functions, as they might write them.


def unfinished(*arguments, **options):
    """A function whose exercise is not done yet: it raises, as the lesson's stub does."""
    raise NotImplementedError()


def retrying_call_once(handler, arguments):
    """A `call_once` that retries: it calls a failing handler three times before giving up."""
    error = None
    for _attempt in range(3):
        try:
            return True, handler(arguments)
        except Exception as exc:
            error = exc
    return False, error


# Notebooks as a student saves them.


def _code(cell_id, source, nbgrader=None):
    return {
        "cell_type": "code",
        "id": cell_id,
        "metadata": {"nbgrader": nbgrader} if nbgrader else {},
        "source": source,
        "outputs": [],
        "execution_count": None,
    }


def exercise_cell(cell_id, source):
    """An exercise cell, as nbgrader releases it: editable, with its grade_id."""
    return _code(cell_id, source, {"grade_id": cell_id, "solution": True, "locked": False})


def pasted_exercise_cell(cell_id, source):
    """A copy of an exercise cell pasted into another notebook: same metadata, new nbformat id."""
    cell = exercise_cell(cell_id, source)
    cell["id"] = f"pasted-{cell_id}"
    return cell


def course_cell(cell_id, source):
    """One of the course's locked cells: a demo, a check or a widget."""
    return _code(cell_id, source, {"grade_id": cell_id, "solution": False, "locked": True})


def own_cell(source, cell_id="helper-1"):
    """A code cell the student added: JupyterLab gives it no nbgrader metadata."""
    return _code(cell_id, source)


def write_notebook(path, cells):
    """Write a notebook holding `cells`, as JupyterLab saves one."""
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    Path(path).write_text(json.dumps(notebook), encoding="utf-8")


def write_lesson(folder, *, skip=()):
    """Write one notebook per graded step whose exercise cells define the step's names.

    Each function returns its step's number, so a test can tell which step's code ran.
    """
    for step in COURSE.steps:
        if step.notebook in skip:
            continue
        cells = [
            exercise_cell(cell_id, f"def {name}(*args):\n    return {step.number}\n")
            for cell_id, name in zip(step.exercises, step.defines, strict=True)
        ]
        write_notebook(Path(folder) / step.notebook, cells)


def write_lesson_with(folder, step, cells):
    """Write a whole lesson (see `write_lesson`) whose notebook of `step` holds `cells` instead."""
    write_lesson(folder)
    write_notebook(Path(folder) / step.notebook, cells)


def solution_cell(step, cell_id):
    """The exercise cell `cell_id` of `step` as a student who finished it saves it."""
    notebook = json.loads((SOLUTIONS / step.notebook).read_text(encoding="utf-8"))
    [cell] = [c for c in notebook["cells"] if c.get("id") == cell_id]
    return exercise_cell(cell_id, "".join(cell["source"]))


def record_check_now(folder, step, name, source, passed):
    """Record a check of `name` as a check cell does, with the step's saved cells as they are."""
    work = read_step(folder, step)
    record_check(name, source, passed, folder, saved=saved_digest(work.cells))


def copy_solutions(folder):
    """Save every graded step's solution notebook in `folder`, as a student who finished saves."""
    for step in COURSE.steps:
        (Path(folder) / step.notebook).write_bytes((SOLUTIONS / step.notebook).read_bytes())


# Explorers.


def all_parts(widget):
    """Yield the widget and every widget inside it."""
    yield widget
    for child in getattr(widget, "children", ()):
        yield from all_parts(child)


def part(widget, css_class):
    """Return the one widget under `widget` that carries `css_class`."""
    (found,) = [each for each in all_parts(widget) if css_class in each._dom_classes]
    return found


def parts(widget):
    """Return {CSS class: widget} for every widget under `widget`, itself included."""
    return {css: each for each in all_parts(widget) for css in each._dom_classes}
