"""What keeps a step's saved work from being whole, said in a sentence that says where."""

from builders import (
    COURSE,
    course_cell,
    exercise_cell,
    load_lesson,
    own_cell,
    write_lesson_with,
)

from course.carry.assemble import exercise_cells, read_step
from course.carry.diagnose import function_states

pytestmark = []

STEP_2 = COURSE.steps[1]


def test_an_unfinished_function_is_named_with_its_cell(tmp_path):
    write_lesson_with(
        tmp_path,
        STEP_2,
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
    assert load_lesson(tmp_path)[1] == (
        "Step 2 (02-failure-codes.ipynb): `failure_code` is not finished yet: cell "
        "'failure-code' still raises NotImplementedError.",
    )


def test_a_renamed_function_is_missing_and_its_new_name_is_suggested(tmp_path):
    write_lesson_with(
        tmp_path,
        STEP_2,
        [exercise_cell("failure-code", "def failure_codes(exc):\n    return 'tool_failed'\n")],
    )
    [problem] = load_lesson(tmp_path)[1]
    assert problem.startswith(
        "Step 2 (02-failure-codes.ipynb): no cell that carries forward defines `failure_code`."
    )
    assert "Your cells define `failure_codes`" in problem


def test_a_name_only_a_course_cell_defines_is_named_with_that_cell(tmp_path):
    write_lesson_with(
        tmp_path,
        STEP_2,
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
    [problem] = load_lesson(tmp_path)[1]
    assert problem.startswith(
        "Step 2 (02-failure-codes.ipynb), cell 'failure-code' uses `diagnostics`, but nothing "
        "that carries forward defines it."
    )
    assert (
        "The course's cell 'private-channel-demo' in 02-failure-codes.ipynb defines it" in problem
    )


def test_a_typo_is_named_with_the_name_it_looks_like(tmp_path):
    write_lesson_with(
        tmp_path,
        STEP_2,
        [
            exercise_cell(
                "failure-code", "def failure_code(exc):\n    return CODE_FR[type(exc)]\n"
            ),
            own_cell("CODE_FOR = {}\n"),
        ],
    )
    [problem] = load_lesson(tmp_path)[1]
    assert "uses `CODE_FR`" in problem
    assert "Is it a typo for `CODE_FOR`?" in problem
    assert "course's cell" not in problem


def test_a_jupyter_only_name_is_told_as_such(tmp_path):
    write_lesson_with(
        tmp_path,
        STEP_2,
        [
            exercise_cell("failure-code", "def failure_code(exc):\n    return 'tool_failed'\n"),
            own_cell("display(failure_code(KeyError()))\n"),
        ],
    )
    problems = exercise_cells(tmp_path, COURSE).problems
    assert [p for p in problems if "`display` exists only inside Jupyter" in p]


def test_supplied_names_builtins_and_other_steps_functions_are_never_reported(tmp_path):
    write_lesson_with(
        tmp_path,
        STEP_2,
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
    write_lesson_with(
        tmp_path,
        STEP_2,
        [
            exercise_cell(
                "failure-code", "from json import *\ndef failure_code(exc):\n    return dumps(1)\n"
            )
        ],
    )
    assert exercise_cells(tmp_path, COURSE).problems == ()
