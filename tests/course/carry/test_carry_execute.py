"""Carried cells run as plain Python with the supplied names; a failing cell is a sentence."""

from builders import COURSE, exercise_cell, load_lesson, own_cell, write_lesson_with

from course import supplied

pytestmark = []

STEP_2 = COURSE.steps[1]


def test_the_course_copy_of_the_supplied_names_always_wins(tmp_path):
    write_lesson_with(
        tmp_path,
        COURSE.step_for_notebook("01-the-envelope.ipynb"),
        [
            exercise_cell(
                "make-envelope",
                "class NotFoundError(Exception):\n    pass\n"
                "def check_json_value(value):\n    return None\n"
                "def make_envelope():\n    return NotFoundError\n",
            )
        ],
    )
    namespace, _ = load_lesson(tmp_path)
    assert namespace["NotFoundError"] is supplied.NotFoundError
    assert namespace["check_json_value"] is supplied.check_json_value


def test_a_syntax_error_names_the_cell_and_line(tmp_path):
    write_lesson_with(
        tmp_path,
        COURSE.step_for_notebook("01-the-envelope.ipynb"),
        [exercise_cell("make-envelope", "x = 1\ndef make_envelope(:\n    pass\n")],
    )
    _, problems = load_lesson(tmp_path)
    assert problems[-1] == (
        "Step 1 (01-the-envelope.ipynb), cell 'make-envelope' has a syntax error on line 2: "
        "invalid syntax. Fix it and save."
    )


def test_a_jupyter_command_in_an_own_cell_is_named_as_such_not_as_a_syntax_error(tmp_path):
    write_lesson_with(
        tmp_path,
        STEP_2,
        [
            exercise_cell("failure-code", "def failure_code(exc):\n    return 'tool_failed'\n"),
            own_cell("%timeit failure_code(KeyError())\n"),
        ],
    )
    [problem] = load_lesson(tmp_path)[1]
    assert "uses the Jupyter command '%timeit' on line 1" in problem
    assert "syntax error" not in problem


def test_an_exception_at_top_level_names_the_cell_and_later_cells_still_run(tmp_path):
    write_lesson_with(
        tmp_path,
        STEP_2,
        [
            exercise_cell("failure-code", "def failure_code(exc):\n    return 1\n"),
            own_cell("raise ValueError('oops')\n"),
        ],
    )
    namespace, problems = load_lesson(tmp_path)
    assert problems == (
        "Step 2 (02-failure-codes.ipynb), your cell \"raise ValueError('oops')\" stopped with "
        "ValueError when it ran: oops. Run that cell in its notebook to see where, fix it and "
        "save.",
    )
    assert namespace["invoke_tool"]() == 7
