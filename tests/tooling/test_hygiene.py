"""Committed notebooks carry no outputs, stable meaningful ids and only the metadata needed."""

import json

import pytest

from grader.paths import LESSONS, SOLUTIONS
from tooling import hygiene
from tooling.paths import assignment_name

pytestmark = []

KERNEL = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
LOCKED = {"nbgrader": {"grade": False, "grade_id": "setup", "locked": True, "solution": False}}


def code_cell(cell_id="setup", **changes):
    """Return a clean code cell whose grade_id is its id, with `changes` applied."""
    cell = {
        "cell_type": "code",
        "id": cell_id,
        "metadata": {"nbgrader": {**LOCKED["nbgrader"], "grade_id": cell_id}},
        "execution_count": None,
        "outputs": [],
        "source": "x = 1",
    }
    cell.update(changes)
    return cell


def notebook_with(cells, metadata=KERNEL):
    """Return a notebook dict holding `cells`."""
    return {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}


def problems_of(tmp_path, notebook):
    """Write `notebook` as a solution notebook and return what the hygiene check says."""
    path = tmp_path / "solutions" / "lesson" / "one.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return hygiene.all_problems(solutions_dir=tmp_path / "solutions", lessons_dir=tmp_path / "none")


def test_every_committed_notebook_is_clean():
    assignment = assignment_name()
    found = list((SOLUTIONS / assignment).glob("*.ipynb"))
    found += list((LESSONS / assignment).glob("*.ipynb"))
    assert len(found) >= 2, "no committed notebooks were found to check"
    assert hygiene.all_problems() == []


def test_a_clean_notebook_has_no_problems(tmp_path):
    assert problems_of(tmp_path, notebook_with([code_cell()])) == []


@pytest.mark.parametrize(
    ("notebook", "complaint"),
    [
        (notebook_with([code_cell(outputs=[{"output_type": "stream"}])]), "has outputs"),
        (notebook_with([code_cell(execution_count=3)]), "execution_count"),
        (notebook_with([code_cell("4f1c2b9a")]), "random-looking id"),
        (notebook_with([code_cell("Setup_Cell")]), "lowercase words"),
        (notebook_with([code_cell(), code_cell()]), "repeats an id"),
        (notebook_with([code_cell(metadata={**LOCKED, "collapsed": True})]), "collapsed"),
        (notebook_with([code_cell(id="other")]), "differs from its id"),
        (notebook_with([code_cell()], {**KERNEL, "widgets": {}}), "notebook metadata widgets"),
    ],
    ids=["outputs", "count", "random-id", "bad-id", "repeat", "metadata", "grade-id", "nb-meta"],
)
def test_each_kind_of_problem_is_reported_once_in_one_line(tmp_path, notebook, complaint):
    problems = problems_of(tmp_path, notebook)
    assert len(problems) == 1, problems
    assert complaint in problems[0]
    assert "one.ipynb" in problems[0]
    assert "\n" not in problems[0]


def test_a_code_cell_without_a_grade_id_is_refused_as_it_would_carry_forward(tmp_path):
    loose = code_cell("loose-demo", metadata={})
    [problem] = problems_of(tmp_path, notebook_with([code_cell(), loose]))
    assert "cell 2 (loose-demo) has no nbgrader grade_id" in problem
    assert "carry forward" in problem
