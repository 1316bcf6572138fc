"""Check cells: no traceback, a miss on stderr, and the saved file compared with the kernel."""

import json

from builders import (
    COURSE,
    SOLUTIONS,
    copy_solutions,
    course_cell,
    exercise_cell,
    write_notebook,
)
from student_mistakes import CATCHES_EXCEPTION_FIRST, COUNTS_CHARACTERS

from course.carry.assemble import ExerciseCell, exercise_cells
from course.carry.execute import run_cells
from course.carry.history import HISTORY_FILE, read_history
from course.checks import check, check_saved_work

pytestmark = []

STEP_2, STEP_4, STEP_7 = COURSE.steps[1], COURSE.steps[3], COURSE.steps[-1]
FINISHED = (
    "def failure_code(exc):\n    return 'not_found' if isinstance(exc, NotFoundError) else 'x'\n"
)
REFERENCE_2 = (SOLUTIONS / STEP_2.notebook).read_text(encoding="utf-8")


def kernel_with(source, step=STEP_2, cell_id="kernel"):
    """A namespace where `source` ran as a cell of `step`, so Python knows its source."""
    namespace = {}
    assert run_cells([ExerciseCell(step, cell_id, source)], namespace) == ()
    return namespace


def save_reference_step_2(folder):
    """Save step 2's solution notebook in `folder`; return its exercise cell's source."""
    (folder / STEP_2.notebook).write_text(REFERENCE_2, encoding="utf-8")
    cells = json.loads(REFERENCE_2)["cells"]
    [exercise] = [c for c in cells if c["id"] == "failure-code"]
    return "".join(exercise["source"])


def test_a_check_run_before_the_exercise_cell_says_what_to_run_on_stderr(tmp_path, capsys):
    check("failure_code", {}, folder=tmp_path)
    printed = capsys.readouterr()
    assert printed.out == ""
    assert printed.err.startswith("✗ `failure_code` is this step's exercise")
    assert "Traceback" not in printed.err


def test_a_check_after_a_restart_names_the_supplied_name_the_kernel_lost(tmp_path, capsys):
    namespace = kernel_with(
        "def failure_code(exc):\n    return isinstance(exc, InvalidInputError)\n"
    )
    del namespace["InvalidInputError"]  # what a restart without the setup cell leaves
    check("failure_code", namespace, folder=tmp_path)
    err = capsys.readouterr().err
    assert "`InvalidInputError` is supplied by the course" in err
    assert "Run All Cells" in err
    assert "is not defined here" not in err


def test_a_passing_check_records_the_kernels_version_and_says_nothing_on_stderr(tmp_path, capsys):
    source = save_reference_step_2(tmp_path)
    namespace = kernel_with(source)
    check("failure_code", namespace, folder=tmp_path)
    printed = capsys.readouterr()
    assert printed.err == ""
    assert printed.out.splitlines()[-1] == "All 6 checks of `failure_code` passed."
    entry = read_history(tmp_path)["failure_code"]
    assert entry["passed"] is True
    assert "def failure_code(exc):" in entry["source"]
    assert (tmp_path / HISTORY_FILE).is_file()


def test_a_version_the_saved_file_lacks_is_pointed_out_after_the_cases(tmp_path, capsys):
    save_reference_step_2(tmp_path)
    namespace = kernel_with(FINISHED)
    check("failure_code", namespace, folder=tmp_path)
    out = capsys.readouterr().out
    assert (
        "⚠ The saved 02-failure-codes.ipynb does not hold this version of `failure_code` yet" in out
    )
    assert "File → Save Notebook" in out


def test_once_saved_a_name_that_does_not_carry_forward_is_pointed_out(tmp_path, capsys):
    source = "def failure_code(exc):\n    diagnostics.error('x')\n    return 'tool_failed'\n"
    write_notebook(
        tmp_path / STEP_2.notebook,
        [
            course_cell(
                "private-channel-demo", "import logging\ndiagnostics = logging.getLogger()\n"
            ),
            exercise_cell("failure-code", source),
        ],
    )
    namespace = kernel_with(
        "import logging\ndiagnostics = logging.getLogger('demo')\n", cell_id="demo"
    )
    namespace.update(kernel_with(source, cell_id="failure-code"))
    check("failure_code", namespace, folder=tmp_path)
    out = capsys.readouterr().out
    assert "uses `diagnostics`, but nothing that carries forward defines it" in out
    assert "The course's cell 'private-channel-demo'" in out


def test_a_failing_check_prints_its_miss_on_stderr_after_the_passes(tmp_path, capsys):
    namespace = kernel_with("def failure_code(exc):\n    return 'tool_failed'\n")
    check("failure_code", namespace, folder=tmp_path)
    printed = capsys.readouterr()
    assert printed.out == ""  # the first case already misses
    assert printed.err.startswith("✗ The three course exceptions get their own codes: not yet.")
    assert read_history(tmp_path)["failure_code"]["passed"] is False


def test_check_saved_work_grades_the_saved_files_one_line_per_function(tmp_path, capsys):
    copy_solutions(tmp_path)
    write_notebook(
        tmp_path / STEP_2.notebook,
        [
            exercise_cell(
                "failure-code", "def failure_code(exc):\n    raise NotImplementedError()\n"
            )
        ],
    )
    check_saved_work(folder=tmp_path)
    printed = capsys.readouterr()
    assert printed.out.startswith("Your saved notebooks, loaded as the grader loads them:\n")
    assert "✓ Step 1 (01-the-envelope.ipynb): `make_envelope` passes all 6 checks." in printed.out
    assert printed.err.count("✗ Step 2 (02-failure-codes.ipynb)") == 1
    assert (
        "✗ Step 7 (07-invoke-tool.ipynb): `invoke_tool` as saved does not pass its check: "
        "`invoke_tool` calls `failure_code`" in printed.err
    )
    assert "Every step the grader reads passes" not in printed.out


def test_check_saved_work_shows_step_7s_own_miss_beside_a_step_4_that_fails_its_check(
    tmp_path, capsys
):
    # Issue 42: step 7's line said only "`invoke_tool` calls `budget_error` ...", so the wrong
    # except order in invoke_tool itself showed nowhere.
    copy_solutions(tmp_path)
    write_notebook(tmp_path / STEP_4.notebook, [exercise_cell("budget-error", COUNTS_CHARACTERS)])
    write_notebook(
        tmp_path / STEP_7.notebook, [exercise_cell("invoke-tool", CATCHES_EXCEPTION_FIRST)]
    )
    check_saved_work(folder=tmp_path)
    err = capsys.readouterr().err
    assert "✗ Step 4 (04-byte-budget.ipynb): `budget_error` as saved does not pass its check" in err
    assert (
        "✗ Step 7 (07-invoke-tool.ipynb): `invoke_tool` as saved does not pass its check: "
        "Every failure gets its code: not yet." in err
    )
    assert "calls `budget_error`" not in err


def test_check_saved_work_names_a_kernel_function_that_is_not_the_saved_one(tmp_path, capsys):
    copy_solutions(tmp_path)
    namespace = kernel_with("def invoke_tool(request, tools, **options):\n    return {}\n", STEP_7)
    check_saved_work(namespace, folder=tmp_path)
    printed = capsys.readouterr()
    assert printed.err == ""
    assert (
        "⚠ Step 7 (07-invoke-tool.ipynb): this kernel's `invoke_tool` differs from the saved one"
        in printed.out
    )
    assert printed.out.rstrip().endswith("Every step the grader reads passes its visible check.")
    assert exercise_cells(tmp_path, COURSE).problems == ()
