"""The carry-forward rule: what each step's saved notebook carries forward, in lesson order."""

import pytest
from builders import (
    COURSE,
    course_cell,
    exercise_cell,
    load_lesson,
    own_cell,
    pasted_exercise_cell,
    write_lesson,
    write_lesson_with,
    write_notebook,
)

from course.carry.assemble import exercise_cells, notebook_exercise_cells, read_step
from course.carry.execute import run_cells
from course.carry.notebooks import AssemblyError

pytestmark = []

STEP_2 = COURSE.steps[1]


def test_every_step_is_loaded_in_lesson_order(tmp_path):
    write_lesson(tmp_path)
    assembly = exercise_cells(tmp_path, COURSE)
    expected = [cell_id for step in COURSE.steps for cell_id in step.exercises]
    assert [cell.cell_id for cell in assembly.cells] == expected
    assert assembly.problems == ()


def test_loaded_functions_are_the_students_own(tmp_path):
    write_lesson(tmp_path)
    namespace, problems = load_lesson(tmp_path)
    assert problems == ()
    assert namespace["make_envelope"]() == 1
    assert namespace["invoke_tool"]() == 7


def test_before_stops_at_the_named_step(tmp_path):
    write_lesson(tmp_path)
    assembly = exercise_cells(tmp_path, COURSE, before="04-byte-budget.ipynb")
    assert {cell.step.number for cell in assembly.cells} == {1, 2, 3}


def test_the_practice_step_is_never_part_of_the_graded_assembly(tmp_path):
    write_lesson(tmp_path)
    practice = COURSE.practice[0]
    write_notebook(tmp_path / practice.notebook, [exercise_cell("my-tests", "x = 8\n")])
    assembly = exercise_cells(tmp_path, COURSE)
    assert practice.notebook not in {cell.step.notebook for cell in assembly.cells}
    assert COURSE.step_for_notebook(practice.notebook) == practice


def test_a_helper_cell_below_the_exercise_carries_forward_and_is_used(tmp_path):
    write_lesson_with(
        tmp_path,
        STEP_2,
        [
            course_cell("setup", "from course.carry.setup_cell import load_earlier_steps\n"),
            exercise_cell("failure-code", "def failure_code(exc):\n    return CODE_FOR[0]\n"),
            own_cell("CODE_FOR = ['tool_failed']\n"),
            course_cell("failure-code-check", "check('failure_code', globals())\n"),
        ],
    )
    namespace, problems = load_lesson(tmp_path)
    assert problems == ()
    assert namespace["failure_code"](KeyError()) == "tool_failed"
    cells = [cell for cell in exercise_cells(tmp_path, COURSE).cells if cell.step == STEP_2]
    assert [(cell.cell_id, cell.own) for cell in cells] == [
        ("failure-code", False),
        ("helper-1", True),
    ]
    assert (
        cells[1].label
        == "Step 2 (02-failure-codes.ipynb), your cell \"CODE_FOR = ['tool_failed']\""
    )
    assert cells[1].filename == "<02-failure-codes.ipynb, your cell 1>"


def test_a_helper_cell_above_the_exercise_carries_forward_in_notebook_order(tmp_path):
    write_lesson_with(
        tmp_path,
        STEP_2,
        [
            own_cell("PREFIX = 'tool'\n"),
            exercise_cell(
                "failure-code",
                "SUFFIX = PREFIX + '_failed'\ndef failure_code(exc):\n    return SUFFIX\n",
            ),
        ],
    )
    namespace, problems = load_lesson(tmp_path)
    assert problems == ()
    assert namespace["failure_code"](KeyError()) == "tool_failed"


def test_the_courses_own_cells_and_empty_cells_do_not_carry_forward(tmp_path):
    write_lesson_with(
        tmp_path,
        STEP_2,
        [
            course_cell("leak-demo", "raise RuntimeError('a demo must never run at loading')\n"),
            exercise_cell("failure-code", "def failure_code(exc):\n    return 'tool_failed'\n"),
            own_cell("   \n"),
        ],
    )
    work = read_step(tmp_path, STEP_2)
    assert [cell.cell_id for cell in work.cells] == ["failure-code"]
    assert load_lesson(tmp_path)[1] == ()


def test_a_pasted_copy_of_another_steps_exercise_carries_forward_as_the_students_code(tmp_path):
    write_lesson(tmp_path)
    last = COURSE.steps[-1]
    write_notebook(
        tmp_path / last.notebook,
        [
            exercise_cell("invoke-tool", "def invoke_tool():\n    return make_envelope()\n"),
            pasted_exercise_cell(
                "make-envelope", "def make_envelope():\n    return 'fixed in 7'\n"
            ),
        ],
    )
    namespace, problems = load_lesson(tmp_path)
    assert problems == ()
    assert namespace["invoke_tool"]() == "fixed in 7"


def test_of_two_copies_of_an_exercise_cell_the_finished_one_counts(tmp_path):
    write_lesson_with(
        tmp_path,
        STEP_2,
        [
            exercise_cell("failure-code", "def failure_code(exc):\n    return 'mine'\n"),
            exercise_cell(
                "failure-code", "def failure_code(exc):\n    raise NotImplementedError()\n"
            ),
        ],
    )
    namespace, problems = load_lesson(tmp_path)
    assert namespace["failure_code"](None) == "mine"
    [problem] = problems
    assert problem.startswith("Step 2 (02-failure-codes.ipynb): There are 2 copies of the exercise")
    assert "the finished one (copy 1 of 2, counting from the top)" in problem
    assert "Delete the other copies" in problem


def test_of_two_finished_copies_the_lower_one_counts_as_it_runs_last(tmp_path):
    write_lesson_with(
        tmp_path,
        STEP_2,
        [
            exercise_cell("failure-code", "def failure_code(exc):\n    return 'upper'\n"),
            exercise_cell("failure-code", "def failure_code(exc):\n    return 'lower'\n"),
        ],
    )
    namespace, problems = load_lesson(tmp_path)
    assert namespace["failure_code"](None) == "lower"
    assert "the lowest one, which runs last (copy 2 of 2" in problems[0]


def test_a_missing_notebook_is_named_and_the_others_still_load(tmp_path):
    write_lesson(tmp_path, skip={STEP_2.notebook})
    namespace, problems = load_lesson(tmp_path)
    assert problems == (
        "Step 2 (02-failure-codes.ipynb): the notebook is missing from the folder "
        f"{tmp_path.name}/.",
    )
    assert "failure_code" not in namespace
    assert namespace["encode_json"]() == 3


def test_a_deleted_exercise_cell_is_named_once_with_how_to_undo_it(tmp_path):
    write_lesson(tmp_path)
    write_notebook(tmp_path / "03-json-vocabulary.ipynb", [])
    _, problems = load_lesson(tmp_path)
    assert len(problems) == 1
    assert problems[0].startswith(
        "Step 3 (03-json-vocabulary.ipynb): the exercise cell 'encode-json' is missing"
    )
    assert "Undo" in problems[0]


def test_a_single_notebook_carries_its_exercise_and_own_cells_in_notebook_order(tmp_path):
    path = tmp_path / "everything.ipynb"
    write_notebook(
        path,
        [
            exercise_cell("invoke-tool", "def invoke_tool(): return make_envelope()\n"),
            own_cell("HELPER = 1\n"),
            exercise_cell("make-envelope", "def make_envelope(): return HELPER\n"),
            {"cell_type": "markdown", "id": "notes", "metadata": {}, "source": "hello"},
        ],
    )
    assembly = notebook_exercise_cells(path, COURSE)
    assert [cell.cell_id for cell in assembly.cells] == ["invoke-tool", "helper-1", "make-envelope"]
    assert [cell.step.number for cell in assembly.cells] == [7, 0, 1]
    assert assembly.cells[0].filename == "<07-invoke-tool.ipynb, cell invoke-tool>"
    assert assembly.cells[1].label == 'everything.ipynb, your cell "HELPER = 1"'
    namespace = {}
    assert run_cells(assembly.cells, namespace) == ()
    assert namespace["invoke_tool"]() == 1


def test_a_notebook_without_exercise_cells_says_there_is_nothing_to_grade(tmp_path):
    path = tmp_path / "empty.ipynb"
    write_notebook(path, [own_cell("x = 1\n")])
    with pytest.raises(AssemblyError, match="nothing to grade"):
        notebook_exercise_cells(path, COURSE)
