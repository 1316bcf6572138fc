"""The assembly mechanism loads a student's exercise cells in lesson order and explains problems."""

import json

import pytest

from course import supplied
from course.assemble import (
    AssemblyError,
    exercise_cells,
    load_course,
    load_earlier_steps,
    notebook_exercise_cells,
    run_cells,
)

COURSE = load_course()


def exercise_cell(cell_id, source):
    return {
        "cell_type": "code",
        "id": cell_id,
        "metadata": {"nbgrader": {"grade_id": cell_id, "solution": True}},
        "source": source,
        "outputs": [],
        "execution_count": None,
    }


def write_notebook(path, cells):
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4}), encoding="utf-8")


def write_lesson(folder, *, skip=()):
    """Write one notebook per step whose exercise cells define each name the step defines."""
    for step in COURSE.steps:
        if step.notebook in skip:
            continue
        cells = [
            exercise_cell(cell_id, f"def {name}():\n    return {step.number}\n")
            for cell_id, name in zip(step.exercises, step.defines, strict=True)
        ]
        write_notebook(folder / step.notebook, cells)


def run_all(folder):
    assembly = exercise_cells(folder, COURSE)
    namespace = {}
    problems = assembly.problems + run_cells(assembly.cells, namespace)
    return namespace, problems


def test_every_step_is_loaded_in_lesson_order(tmp_path):
    write_lesson(tmp_path)
    assembly = exercise_cells(tmp_path, COURSE)
    expected = [cell_id for step in COURSE.steps for cell_id in step.exercises]
    assert [cell.cell_id for cell in assembly.cells] == expected
    assert assembly.problems == ()


def test_loaded_functions_are_the_students_own(tmp_path):
    write_lesson(tmp_path)
    namespace, problems = run_all(tmp_path)
    assert problems == ()
    assert namespace["make_envelope"]() == 1
    assert namespace["invoke_tool"]() == 7


def test_before_stops_at_the_named_step(tmp_path):
    write_lesson(tmp_path)
    assembly = exercise_cells(tmp_path, COURSE, before="04-byte-budget.ipynb")
    assert {cell.step.number for cell in assembly.cells} == {1, 2, 3}


def test_a_missing_notebook_is_named_and_the_others_still_load(tmp_path):
    write_lesson(tmp_path, skip={"02-failure-codes.ipynb"})
    namespace, problems = run_all(tmp_path)
    assert problems == (
        "Step 2 (02-failure-codes.ipynb) is missing from the folder " + f"{tmp_path.name}/.",
    )
    assert "failure_code" not in namespace
    assert namespace["encode_json"]() == 3


def test_a_deleted_exercise_cell_is_named_with_its_step(tmp_path):
    write_lesson(tmp_path)
    write_notebook(tmp_path / "03-json-vocabulary.ipynb", [])
    _, problems = run_all(tmp_path)
    assert len(problems) == 1
    assert problems[0].startswith(
        "Step 3 (03-json-vocabulary.ipynb): the exercise cell 'encode-json'"
    )
    assert "Undo" in problems[0]


def test_a_malformed_notebook_is_a_problem_not_a_crash(tmp_path):
    write_lesson(tmp_path)
    (tmp_path / "05-ownership.ipynb").write_text("{not json", encoding="utf-8")
    _, problems = run_all(tmp_path)
    assert len(problems) == 1
    assert "05-ownership.ipynb could not be read as a notebook" in problems[0]


def test_a_syntax_error_names_the_cell_and_line(tmp_path):
    write_lesson(tmp_path)
    write_notebook(
        tmp_path / "01-the-envelope.ipynb",
        [exercise_cell("make-envelope", "x = 1\ndef make_envelope(:\n    pass\n")],
    )
    _, problems = run_all(tmp_path)
    assert problems == (
        "Step 1 (01-the-envelope.ipynb), cell 'make-envelope' has a syntax error on line 2: "
        "invalid syntax. Fix it and save.",
    )


def test_an_exception_at_top_level_names_the_cell_and_later_cells_still_run(tmp_path):
    write_lesson(tmp_path)
    write_notebook(
        tmp_path / "02-failure-codes.ipynb",
        [exercise_cell("failure-code", "raise ValueError('oops')\n")],
    )
    namespace, problems = run_all(tmp_path)
    assert len(problems) == 1
    assert problems[0].startswith(
        "Step 2 (02-failure-codes.ipynb), cell 'failure-code' stopped with ValueError"
    )
    assert namespace["invoke_tool"]() == 7


def test_the_course_copy_of_the_supplied_names_always_wins(tmp_path):
    write_lesson(tmp_path)
    write_notebook(
        tmp_path / "01-the-envelope.ipynb",
        [
            exercise_cell(
                "make-envelope",
                "class NotFoundError(Exception):\n    pass\n"
                "def check_json_value(value):\n    return None\n"
                "def make_envelope():\n    return NotFoundError\n",
            )
        ],
    )
    namespace, _ = run_all(tmp_path)
    assert namespace["NotFoundError"] is supplied.NotFoundError
    assert namespace["check_json_value"] is supplied.check_json_value


def test_a_single_notebook_yields_the_exercise_cells_it_holds(tmp_path):
    path = tmp_path / "everything.ipynb"
    write_notebook(
        path,
        [
            exercise_cell("invoke-tool", "def invoke_tool(): return 7\n"),
            exercise_cell("make-envelope", "def make_envelope(): return 1\n"),
            {"cell_type": "markdown", "id": "notes", "metadata": {}, "source": "hello"},
        ],
    )
    assembly = notebook_exercise_cells(path, COURSE)
    assert [cell.cell_id for cell in assembly.cells] == ["make-envelope", "invoke-tool"]


def test_a_notebook_without_exercise_cells_says_there_is_nothing_to_grade(tmp_path):
    path = tmp_path / "empty.ipynb"
    write_notebook(path, [])
    with pytest.raises(AssemblyError, match="nothing to grade"):
        notebook_exercise_cells(path, COURSE)


def test_load_earlier_steps_reports_what_it_loaded_and_what_needs_fixing(tmp_path, capsys):
    write_lesson(tmp_path, skip={"02-failure-codes.ipynb"})
    namespace = {}
    load_earlier_steps(namespace, "04-byte-budget.ipynb", folder=tmp_path)
    printed = capsys.readouterr().out
    assert "Loaded your earlier work: make_envelope, encode_json" in printed
    assert "⚠ Step 2 (02-failure-codes.ipynb) is missing" in printed
    assert printed.count("⚠") == 1
    assert "budget_error" not in namespace
    assert namespace["InvalidInputError"] is supplied.InvalidInputError


def test_load_earlier_steps_refuses_a_notebook_outside_the_lesson(tmp_path):
    with pytest.raises(AssemblyError, match="not a notebook of this lesson"):
        load_earlier_steps({}, "99-extra.ipynb", folder=tmp_path)


def test_assembly_errors_render_as_one_plain_line_in_ipython():
    error = AssemblyError("Step 1 is missing.")
    assert error._render_traceback_() == ["⚠ Step 1 is missing."]
