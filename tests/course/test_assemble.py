"""What carries forward from each step, and the problems found on the way, said plainly."""

import pytest
from lesson_files import (
    COURSE,
    course_cell,
    exercise_cell,
    own_cell,
    pasted_exercise_cell,
    write_lesson,
    write_notebook,
)

from course import supplied
from course.analysis import defined_names, stubbed_functions, used_globals
from course.assemble import (
    AssemblyError,
    exercise_cells,
    notebook_exercise_cells,
    read_step,
    run_cells,
)
from course.problems import function_states

STEP_2 = COURSE.steps[1]


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


def test_the_practice_step_is_never_part_of_the_graded_assembly(tmp_path):
    write_lesson(tmp_path)
    practice = COURSE.practice[0]
    write_notebook(tmp_path / practice.notebook, [exercise_cell("my-tests", "x = 8\n")])
    assembly = exercise_cells(tmp_path, COURSE)
    assert practice.notebook not in {cell.step.notebook for cell in assembly.cells}
    assert COURSE.step_for_notebook(practice.notebook) == practice


# The carry-forward rule: exercise cells and the student's own code cells, in notebook order.


def test_a_helper_cell_below_the_exercise_carries_forward_and_is_used(tmp_path):
    write_lesson(tmp_path)
    write_notebook(
        tmp_path / STEP_2.notebook,
        [
            course_cell("setup", "from course.status import load_earlier_steps\n"),
            exercise_cell("failure-code", "def failure_code(exc):\n    return CODE_FOR[0]\n"),
            own_cell("CODE_FOR = ['tool_failed']\n"),
            course_cell("failure-code-check", "check('failure_code', globals())\n"),
        ],
    )
    namespace, problems = run_all(tmp_path)
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
    write_lesson(tmp_path)
    write_notebook(
        tmp_path / STEP_2.notebook,
        [
            own_cell("PREFIX = 'tool'\n"),
            exercise_cell(
                "failure-code",
                "SUFFIX = PREFIX + '_failed'\ndef failure_code(exc):\n    return SUFFIX\n",
            ),
        ],
    )
    namespace, problems = run_all(tmp_path)
    assert problems == ()
    assert namespace["failure_code"](KeyError()) == "tool_failed"


def test_the_courses_own_cells_and_empty_cells_do_not_carry_forward(tmp_path):
    write_lesson(tmp_path)
    write_notebook(
        tmp_path / STEP_2.notebook,
        [
            course_cell("leak-demo", "raise RuntimeError('a demo must never run at loading')\n"),
            exercise_cell("failure-code", "def failure_code(exc):\n    return 'tool_failed'\n"),
            own_cell("   \n"),
        ],
    )
    work = read_step(tmp_path, STEP_2)
    assert [cell.cell_id for cell in work.cells] == ["failure-code"]
    assert run_all(tmp_path)[1] == ()


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
    namespace, problems = run_all(tmp_path)
    assert problems == ()
    assert namespace["invoke_tool"]() == "fixed in 7"


def test_of_two_copies_of_an_exercise_cell_the_finished_one_counts(tmp_path):
    write_lesson(tmp_path)
    write_notebook(
        tmp_path / STEP_2.notebook,
        [
            exercise_cell("failure-code", "def failure_code(exc):\n    return 'mine'\n"),
            exercise_cell(
                "failure-code", "def failure_code(exc):\n    raise NotImplementedError()\n"
            ),
        ],
    )
    namespace, problems = run_all(tmp_path)
    assert namespace["failure_code"](None) == "mine"
    [problem] = problems
    assert problem.startswith("Step 2 (02-failure-codes.ipynb): There are 2 copies of the exercise")
    assert "the finished one (copy 1 of 2, counting from the top)" in problem
    assert "Delete the other copies" in problem


def test_of_two_finished_copies_the_lower_one_counts_as_it_runs_last(tmp_path):
    write_lesson(tmp_path)
    write_notebook(
        tmp_path / STEP_2.notebook,
        [
            exercise_cell("failure-code", "def failure_code(exc):\n    return 'upper'\n"),
            exercise_cell("failure-code", "def failure_code(exc):\n    return 'lower'\n"),
        ],
    )
    namespace, problems = run_all(tmp_path)
    assert namespace["failure_code"](None) == "lower"
    assert "the lowest one, which runs last (copy 2 of 2" in problems[0]


# What is wrong with a step's saved work.


def test_an_unfinished_function_is_named_with_its_cell(tmp_path):
    write_lesson(tmp_path)
    write_notebook(
        tmp_path / STEP_2.notebook,
        [
            exercise_cell(
                "failure-code", "def failure_code(exc):\n    raise NotImplementedError()\n"
            )
        ],
    )
    work = read_step(tmp_path, STEP_2)
    assert function_states(work) == [
        (
            "failure_code",
            "unfinished",
            "`failure_code` is not finished yet: cell 'failure-code' still raises "
            "NotImplementedError.",
        )
    ]
    assert run_all(tmp_path)[1] == (
        "Step 2 (02-failure-codes.ipynb): `failure_code` is not finished yet: cell "
        "'failure-code' still raises NotImplementedError.",
    )


def test_a_renamed_function_is_missing_and_its_new_name_is_suggested(tmp_path):
    write_lesson(tmp_path)
    write_notebook(
        tmp_path / STEP_2.notebook,
        [exercise_cell("failure-code", "def failure_codes(exc):\n    return 'tool_failed'\n")],
    )
    [problem] = run_all(tmp_path)[1]
    assert problem.startswith(
        "Step 2 (02-failure-codes.ipynb): no cell that carries forward defines `failure_code`."
    )
    assert "Your cells define `failure_codes`" in problem


def test_a_missing_notebook_is_named_and_the_others_still_load(tmp_path):
    write_lesson(tmp_path, skip={STEP_2.notebook})
    namespace, problems = run_all(tmp_path)
    assert problems == (
        "Step 2 (02-failure-codes.ipynb): the notebook is missing from the folder "
        f"{tmp_path.name}/.",
    )
    assert "failure_code" not in namespace
    assert namespace["encode_json"]() == 3


def test_a_deleted_exercise_cell_is_named_once_with_how_to_undo_it(tmp_path):
    write_lesson(tmp_path)
    write_notebook(tmp_path / "03-json-vocabulary.ipynb", [])
    _, problems = run_all(tmp_path)
    assert len(problems) == 1
    assert problems[0].startswith(
        "Step 3 (03-json-vocabulary.ipynb): the exercise cell 'encode-json' is missing"
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
    assert problems[-1] == (
        "Step 1 (01-the-envelope.ipynb), cell 'make-envelope' has a syntax error on line 2: "
        "invalid syntax. Fix it and save."
    )


def test_a_jupyter_command_in_an_own_cell_is_named_as_such_not_as_a_syntax_error(tmp_path):
    write_lesson(tmp_path)
    write_notebook(
        tmp_path / STEP_2.notebook,
        [
            exercise_cell("failure-code", "def failure_code(exc):\n    return 'tool_failed'\n"),
            own_cell("%timeit failure_code(KeyError())\n"),
        ],
    )
    [problem] = run_all(tmp_path)[1]
    assert "uses the Jupyter command '%timeit' on line 1" in problem
    assert "syntax error" not in problem


def test_an_exception_at_top_level_names_the_cell_and_later_cells_still_run(tmp_path):
    write_lesson(tmp_path)
    write_notebook(
        tmp_path / STEP_2.notebook,
        [
            exercise_cell("failure-code", "def failure_code(exc):\n    return 1\n"),
            own_cell("raise ValueError('oops')\n"),
        ],
    )
    namespace, problems = run_all(tmp_path)
    assert problems == (
        "Step 2 (02-failure-codes.ipynb), your cell \"raise ValueError('oops')\" stopped with "
        "ValueError when it ran: oops. Run that cell in its notebook to see where, fix it and "
        "save.",
    )
    assert namespace["invoke_tool"]() == 7


# A name used but defined nowhere that carries forward.


def test_a_name_only_a_course_cell_defines_is_named_with_that_cell(tmp_path):
    write_lesson(tmp_path)
    write_notebook(
        tmp_path / STEP_2.notebook,
        [
            course_cell(
                "private-channel-demo", "import logging\ndiagnostics = logging.getLogger()\n"
            ),
            exercise_cell(
                "failure-code",
                "def failure_code(exc):\n    diagnostics.error('x')\n    return 'tool_failed'\n",
            ),
        ],
    )
    [problem] = run_all(tmp_path)[1]
    assert problem.startswith(
        "Step 2 (02-failure-codes.ipynb), cell 'failure-code' uses `diagnostics`, but nothing "
        "that carries forward defines it."
    )
    assert (
        "The course's cell 'private-channel-demo' in 02-failure-codes.ipynb defines it" in problem
    )


def test_a_typo_is_named_with_the_name_it_looks_like(tmp_path):
    write_lesson(tmp_path)
    write_notebook(
        tmp_path / STEP_2.notebook,
        [
            exercise_cell(
                "failure-code", "def failure_code(exc):\n    return CODE_FR[type(exc)]\n"
            ),
            own_cell("CODE_FOR = {}\n"),
        ],
    )
    [problem] = run_all(tmp_path)[1]
    assert "uses `CODE_FR`" in problem
    assert "Is it a typo for `CODE_FOR`?" in problem
    assert "course's cell" not in problem


def test_a_jupyter_only_name_is_told_as_such(tmp_path):
    write_lesson(tmp_path)
    write_notebook(
        tmp_path / STEP_2.notebook,
        [
            exercise_cell("failure-code", "def failure_code(exc):\n    return 'tool_failed'\n"),
            own_cell("display(failure_code(KeyError()))\n"),
        ],
    )
    problems = exercise_cells(tmp_path, COURSE).problems
    assert [p for p in problems if "`display` exists only inside Jupyter" in p]


def test_supplied_names_builtins_and_other_steps_functions_are_never_reported(tmp_path):
    write_lesson(tmp_path)
    write_notebook(
        tmp_path / STEP_2.notebook,
        [
            exercise_cell(
                "failure-code",
                "def failure_code(exc):\n"
                "    if isinstance(exc, InvalidInputError):\n"
                "        return make_envelope(len('x'))\n"
                "    return call_once(print, {})\n",
            )
        ],
    )
    assert exercise_cells(tmp_path, COURSE, before="03-json-vocabulary.ipynb").problems == ()


def test_a_star_import_turns_the_undefined_name_report_off(tmp_path):
    write_lesson(tmp_path)
    write_notebook(
        tmp_path / STEP_2.notebook,
        [
            exercise_cell(
                "failure-code", "from json import *\ndef failure_code(exc):\n    return dumps(1)\n"
            )
        ],
    )
    assert exercise_cells(tmp_path, COURSE).problems == ()


def test_the_static_reading_sees_scopes_as_python_does():
    source = (
        "import json\n"
        "TABLE = {}\n"
        "def f(x):\n"
        "    y = [z for z in x if z > LIMIT]\n"
        "    return json.dumps(y) + TABLE + HELPER(x)\n"
        "class A:\n"
        "    size = 1\n"
        "    def method(self):\n"
        "        return size\n"
        "def g():\n"
        "    global COUNT\n"
        "    COUNT = 1\n"
    )
    assert defined_names(source) == {"json", "TABLE", "f", "A", "g", "COUNT"}
    assert used_globals(source) - {"json", "TABLE"} == {"LIMIT", "HELPER", "size"}
    assert stubbed_functions("def f():\n    '''doc'''\n    raise NotImplementedError()\n") == {"f"}
    assert (
        stubbed_functions("def f(x):\n    if x:\n        raise NotImplementedError\n    return 1\n")
        == set()
    )


# Running cells, and the other ways in.


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


def test_assembly_errors_render_as_one_plain_line_in_ipython():
    error = AssemblyError("Step 1 is missing.")
    assert error._render_traceback_() == ["⚠ Step 1 is missing."]
