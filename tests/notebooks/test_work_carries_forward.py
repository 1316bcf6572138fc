"""A student's work carries forward as the lessons say, and every mishap is told in plain words.

Each test plays one scenario of the issue in real kernels: a helper cell, unsaved work, a kernel
restart, a check that fails half way through Run All, a name only a course cell defines.
"""

import pytest
from notebook_runs import (
    SOLUTIONS,
    add_own_cell,
    cell,
    copy_folder,
    errors,
    execute,
    read,
    save,
    set_source,
    shows_widget,
    solution_source,
    stream,
)

from course.carry.assemble import exercise_cells
from course.manifest import load_course

pytestmark = [pytest.mark.kernel]

STEP_2, STEP_4, STEP_7 = "02-failure-codes.ipynb", "04-byte-budget.ipynb", "07-invoke-tool.ipynb"
TABLE_VERSION = '''def failure_code(exc):
    """Return the stable code of an exception, from the table in the cell below."""
    for cls, code in CODE_FOR:
        if isinstance(exc, cls):
            return code
    return "tool_failed"
'''
TABLE = """CODE_FOR = (
    (InvalidInputError, "invalid_input"),
    (PermissionDeniedError, "permission_denied"),
    (NotFoundError, "not_found"),
)
"""
UNFINISHED_BUDGET = '''def budget_error(text, max_result_bytes):
    """Not written yet."""
    raise NotImplementedError()
'''


def test_a_helper_cell_in_step_2_carries_forward_to_step_7_and_its_checks(tmp_path):
    # The issue: a helper table in its own cell passed step 2's check, then broke step 7
    # ("CODE_FOR is not defined here") and cost 20 points at grading.
    work = copy_folder(SOLUTIONS, tmp_path)
    step_2 = read(work, STEP_2)
    set_source(step_2, "failure-code", TABLE_VERSION)
    add_own_cell(step_2, "failure-code", TABLE)
    save(step_2, work, STEP_2)
    executed = execute(read(work, STEP_7), work)
    setup = stream(cell(executed, "setup"), "stdout")
    assert (
        "✓ Step 2 (02-failure-codes.ipynb): `failure_code` is finished and passes its check."
        in setup
    )
    assert stream(cell(executed, "invoke-tool-check"), "stderr") == ""
    assert "All 9 checks of `invoke_tool` passed." in stream(
        cell(executed, "invoke-tool-check"), "stdout"
    )
    saved_work = stream(cell(executed, "check-saved-work"), "stdout")
    assert "✓ Step 2 (02-failure-codes.ipynb): `failure_code` passes all 6 checks." in saved_work
    assert exercise_cells(work, load_course()).problems == ()


def test_a_name_only_a_demo_defines_is_named_by_the_check_while_still_in_the_step(tmp_path):
    # The issue: calling the logger that step 2 demonstrates from inside failure_code failed
    # only later, in step 7.
    work = copy_folder(SOLUTIONS, tmp_path)
    step_2 = read(work, STEP_2)
    logging_version = solution_source(STEP_2, "failure-code").replace(
        '    return "tool_failed"',
        '    diagnostics.info("unexpected failure")\n    return "tool_failed"',
    )
    set_source(step_2, "failure-code", logging_version)
    save(step_2, work, STEP_2)
    check = cell(execute(read(work, STEP_2), work), "failure-code-check")
    out = stream(check, "stdout")
    assert "All 6 checks of `failure_code` passed." in out  # the kernel has the demo's logger
    assert "uses `diagnostics`, but nothing that carries forward defines it" in out
    assert "The course's cell 'private-channel-demo' in 02-failure-codes.ipynb defines it" in out
    setup = stream(cell(execute(read(work, "03-json-vocabulary.ipynb"), work), "setup"), "stdout")
    assert "uses `diagnostics`" in setup


def test_work_that_passed_its_check_but_was_never_saved_is_told_in_step_7(tmp_path):
    # The issue: Ctrl+S in a widget's text box did not save, and step 7 then said step 4 was
    # unfinished right after step 4 had shown "All 6 checks passed".
    work = copy_folder(SOLUTIONS, tmp_path)
    on_disk = read(work, STEP_4)
    set_source(on_disk, "budget-error", UNFINISHED_BUDGET)
    save(on_disk, work, STEP_4)  # the last save, before the student finished the function
    in_kernel = read(work, STEP_4)
    set_source(in_kernel, "budget-error", solution_source(STEP_4, "budget-error"))
    step_4 = execute(in_kernel, work)  # runs, checks and never saves
    check = cell(step_4, "budget-error-check")
    assert "All 6 checks of `budget_error` passed." in stream(check, "stdout")
    assert "⚠ The saved 04-byte-budget.ipynb does not hold this version" in stream(check, "stdout")
    step_7 = execute(read(work, STEP_7), work)
    setup = stream(cell(step_7, "setup"), "stderr")  # a ✗ line, red on stderr
    [line] = [line for line in setup.splitlines() if "Step 4 (04-byte-budget.ipynb)" in line]
    assert line.startswith("✗ Step 4 (04-byte-budget.ipynb): `budget_error` is not finished yet")
    assert "The check of `budget_error` passed at" in line
    assert "if it shows unsaved changes, save it" in line
    assert "File → Save Notebook" in line
    saved_work = stream(cell(step_7, "check-saved-work"), "stderr")
    assert "✗ Step 4 (04-byte-budget.ipynb): `budget_error` is not finished yet" in saved_work


def test_after_a_restart_checks_and_widgets_run_alone_without_a_traceback(tmp_path):
    # The issue: a check run after a kernel restart showed a bare NameError traceback.
    work = copy_folder(SOLUTIONS, tmp_path)
    only = {"failure-code-check", "error-codes-widget"}
    restarted = execute(read(work, STEP_2), work, only=only)
    check, widget = (
        cell(restarted, "failure-code-check"),
        cell(restarted, "error-codes-widget"),
    )
    assert errors(check) == errors(widget) == []
    assert stream(check, "stderr").startswith("✗ `failure_code` is this step's exercise")
    assert shows_widget(widget)


def test_a_check_run_before_the_setup_names_the_supplied_name_not_a_missing_save(tmp_path):
    # The issue: "is not defined here… save that notebook" for the course's own
    # InvalidInputError after a restart.
    work = copy_folder(SOLUTIONS, tmp_path)
    restarted = execute(read(work, STEP_2), work, only={"failure-code", "failure-code-check"})
    failure = stream(cell(restarted, "failure-code-check"), "stderr")
    assert "`InvalidInputError` is supplied by the course" in failure
    assert "save" not in failure.lower()


def test_run_all_goes_on_past_a_failing_check_to_the_rest_of_the_step(tmp_path):
    # The issue: Run All stopped at the first failing check, leaving the ownership-out half of
    # step 5 unrun.
    work = copy_folder(SOLUTIONS, tmp_path)
    step_5 = read(work, "05-ownership.ipynb")
    set_source(
        step_5, "copy-arguments", "def copy_arguments(arguments):\n    return dict(arguments)\n"
    )
    executed = execute(step_5, work)  # allow_errors=False: any exception would stop it
    assert "Changing the copy at any depth" in stream(
        cell(executed, "copy-arguments-check"), "stderr"
    )
    assert "All 5 checks of `fresh_value` passed." in stream(
        cell(executed, "fresh-value-check"), "stdout"
    )
    assert shows_widget(cell(executed, "ownership-widget"))
    assert "the fixture's members now" in stream(cell(executed, "shared-value-demo"), "stdout")
