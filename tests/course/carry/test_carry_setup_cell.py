"""The setup cell reports on every earlier step, and a missing name gets advice of its own."""

import pytest
from builders import (
    COURSE,
    copy_solutions,
    course_cell,
    exercise_cell,
    own_cell,
    record_check_now,
    solution_cell,
    write_lesson_with,
    write_notebook,
)

from course import supplied
from course.carry.notebooks import AssemblyError
from course.carry.setup_cell import CARRY_RULE, load_earlier_steps, where_name_comes_from

pytestmark = []

STEP_2, STEP_4 = COURSE.steps[1], COURSE.steps[3]


def report(folder, notebook="07-invoke-tool.ipynb"):
    """Run the setup of `notebook` in `folder`; return (namespace, printed lines)."""
    namespace = {}
    lines = []
    load_earlier_steps(namespace, notebook, folder=folder, out=lines.append)
    return namespace, lines


def line_of(lines, step):
    [line] = [line for line in lines if line[2:].startswith(step.label)]
    return line


def test_finished_steps_that_pass_their_checks_are_ticked_and_the_rule_is_said(tmp_path):
    copy_solutions(tmp_path)
    namespace, lines = report(tmp_path, "04-byte-budget.ipynb")
    assert lines == [
        "Your work from the earlier notebooks, as saved:",
        "✓ Step 1 (01-the-envelope.ipynb): `make_envelope` is finished and passes its check.",
        "✓ Step 2 (02-failure-codes.ipynb): `failure_code` is finished and passes its check.",
        "✓ Step 3 (03-json-vocabulary.ipynb): `encode_json` is finished and passes its check.",
        CARRY_RULE,
    ]
    assert namespace["encode_json"]("東京") == '"東京"'
    assert "budget_error" not in namespace
    assert namespace["InvalidInputError"] is supplied.InvalidInputError


def test_a_finished_step_that_fails_its_check_as_saved_is_crossed_with_the_reason(tmp_path):
    # The issue: a budget_error that counts characters was saved; step 7's setup said nothing,
    # and its check blamed invoke_tool.
    copy_solutions(tmp_path)
    counts_characters = (
        "def budget_error(text, max_result_bytes):\n"
        "    return 'result_too_large' if len(text) > max_result_bytes else None\n"
    )
    write_notebook(tmp_path / STEP_4.notebook, [exercise_cell("budget-error", counts_characters)])
    line = line_of(report(tmp_path)[1], STEP_4)
    assert line.startswith(
        "✗ Step 4 (04-byte-budget.ipynb): `budget_error` as saved does not pass its check: "
    )
    assert "Run the check in 04-byte-budget.ipynb for the details." in line


def test_the_first_step_says_there_is_nothing_to_load(tmp_path):
    assert report(tmp_path, "01-the-envelope.ipynb")[1] == [
        "This is the first step: there is no earlier work to load."
    ]


def test_a_skipped_step_is_not_called_loaded(tmp_path):
    # The issue: with step 2 skipped, step 3 said "Loaded your earlier work: ..., failure_code".
    write_lesson_with(
        tmp_path,
        STEP_2,
        [
            exercise_cell(
                "failure-code", "def failure_code(exc):\n    raise NotImplementedError()\n"
            )
        ],
    )
    lines = report(tmp_path, "03-json-vocabulary.ipynb")[1]
    assert line_of(lines, STEP_2) == (
        "✗ Step 2 (02-failure-codes.ipynb): `failure_code` is not finished yet: cell "
        "'failure-code' still raises NotImplementedError."
    )
    assert not any("loaded" in line.lower() for line in lines)


def test_a_missing_notebook_a_renamed_function_and_two_copies_each_get_their_mark(tmp_path):
    copy_solutions(tmp_path)
    (tmp_path / "03-json-vocabulary.ipynb").unlink()
    write_notebook(
        tmp_path / STEP_2.notebook,
        [exercise_cell("failure-code", "def failure_codes(exc):\n    return 'tool_failed'\n")],
    )
    answer = solution_cell(STEP_4, "budget-error")
    write_notebook(tmp_path / STEP_4.notebook, [answer, answer])
    lines = report(tmp_path)[1]
    assert line_of(lines, STEP_2).startswith("✗ ")
    assert "Your cells define `failure_codes`" in line_of(lines, STEP_2)
    assert line_of(lines, COURSE.steps[2]).startswith(
        "✗ Step 3 (03-json-vocabulary.ipynb): the notebook is missing"
    )
    assert line_of(lines, STEP_4).startswith("⚠ Step 4 (04-byte-budget.ipynb): There are 2 copies")
    assert sum(line.startswith("⚠") for line in lines) == 1, "a problem was told twice"


def test_a_check_that_passed_on_unsaved_work_is_pointed_out_even_when_the_file_is_unfinished(
    tmp_path,
):
    # The issue: step 4's check passed, Ctrl+S in a widget did not save, and step 7 then said
    # step 4 was unfinished with no word about saving.
    write_lesson_with(
        tmp_path,
        STEP_4,
        [
            exercise_cell(
                "budget-error", "def budget_error(t, b):\n    raise NotImplementedError()\n"
            )
        ],
    )
    checked = "def budget_error(t, b):\n    return None\n"
    record_check_now(tmp_path, STEP_4, "budget_error", checked, True)
    line = line_of(report(tmp_path)[1], STEP_4)
    assert line.startswith("✗ Step 4 (04-byte-budget.ipynb): `budget_error` is not finished yet")
    assert "The check of `budget_error` passed at" in line
    assert "04-byte-budget.ipynb does not hold as saved" in line
    assert "File → Save Notebook" in line


def test_once_saved_the_same_step_is_ticked(tmp_path):
    copy_solutions(tmp_path)
    answer = solution_cell(STEP_4, "budget-error")
    write_notebook(tmp_path / STEP_4.notebook, [answer])
    record_check_now(tmp_path, STEP_4, "budget_error", answer["source"], True)
    assert line_of(report(tmp_path)[1], STEP_4) == (
        "✓ Step 4 (04-byte-budget.ipynb): `budget_error` is finished and passes its check."
    )


def test_a_version_saved_after_its_check_is_judged_by_its_check_not_called_unsaved(tmp_path):
    # The issue: changed, saved, check not run again: "unsaved changes. Open it, save it", which
    # saving never cleared, while the saved version was really buggy.
    copy_solutions(tmp_path)
    answer = solution_cell(STEP_4, "budget-error")
    write_notebook(tmp_path / STEP_4.notebook, [answer])
    record_check_now(tmp_path, STEP_4, "budget_error", answer["source"], True)
    off_by_one = answer["source"].replace("> max_result_bytes", ">= max_result_bytes")
    assert off_by_one != answer["source"]
    write_notebook(tmp_path / STEP_4.notebook, [exercise_cell("budget-error", off_by_one)])
    line = line_of(report(tmp_path)[1], STEP_4)
    assert line.startswith("✗ Step 4 (04-byte-budget.ipynb): `budget_error` as saved does not")
    assert "unsaved" not in line and "save it" not in line


def test_what_the_students_cells_print_while_loading_is_counted_not_shown(tmp_path):
    write_lesson_with(
        tmp_path,
        STEP_2,
        [
            exercise_cell("failure-code", "def failure_code(exc):\n    return 'tool_failed'\n"),
            own_cell("print('trying things')\nprint(failure_code(KeyError()))\n"),
        ],
    )
    lines = report(tmp_path, "03-json-vocabulary.ipynb")[1]
    assert "trying things" not in "\n".join(lines)
    assert "(Your cells printed 2 lines while they loaded; they are not shown.)" in lines


def test_a_notebook_outside_the_lesson_is_refused(tmp_path):
    with pytest.raises(AssemblyError, match="not a notebook of this lesson"):
        load_earlier_steps({}, "99-extra.ipynb", folder=tmp_path)


# Where a name the kernel lacks should come from: one piece of advice per situation.

ADVICE = {
    "supplied": "is supplied by the course",
    "earlier step": "run the first code cell of this notebook",
    "this step": "is this step's exercise",
    "own cell": "which has not run in this kernel",
    "course cell": "The course's cells do not carry forward",
    "typo": "Is it a typo for",
}


def advice_for(name, tmp_path, namespace=None):
    write_lesson_with(
        tmp_path,
        STEP_4,
        [
            course_cell("syntax-demo", "value = {'city': '東京'}\n"),
            exercise_cell("budget-error", "def budget_error(t, b):\n    return None\n"),
            own_cell("LIMIT = 8\n"),
        ],
    )
    text = where_name_comes_from(name, STEP_4.notebook, namespace or {}, folder=tmp_path)
    return [situation for situation, words in ADVICE.items() if words in text]


@pytest.mark.parametrize(
    ("name", "situation"),
    [
        ("InvalidInputError", "supplied"),
        ("encode_json", "earlier step"),
        ("budget_error", "this step"),
        ("LIMIT", "own cell"),
        ("value", "course cell"),
    ],
)
def test_each_missing_name_gets_the_advice_for_its_situation_and_no_other(
    name, situation, tmp_path
):
    assert advice_for(name, tmp_path) == [situation]


def test_a_typo_of_a_kernel_name_gets_only_the_typo_advice(tmp_path):
    assert advice_for("LIMT", tmp_path, namespace={"LIMIT": 8}) == ["typo"]
