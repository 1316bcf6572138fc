"""Builders of lesson notebooks as a student saves them: exercise cells, own cells, course cells."""

import json
from pathlib import Path

from course.assemble import load_course

COURSE = load_course()
SOLUTIONS = Path(__file__).resolve().parents[2] / "solutions" / COURSE.assignment


def _code(cell_id, source, nbgrader=None):
    cell = {
        "cell_type": "code",
        "id": cell_id,
        "metadata": {"nbgrader": nbgrader} if nbgrader else {},
        "source": source,
        "outputs": [],
        "execution_count": None,
    }
    return cell


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
