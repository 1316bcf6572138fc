"""The findings of the three students, played again in real kernels, one cell at a time.

Each test runs the lesson's own cells (from a copy of the solutions, the work of a student who
finished) in a kernel started in the lesson folder, sending each cell's id as JupyterLab does,
and edits and saves notebooks as a student would between runs.
"""

import json

import pytest
from notebook_runs import SOLUTIONS, copy_folder
from student_kernel import StudentKernel
from student_mistakes import COUNTS_CHARACTERS

from course.checks.harness import RED
from course.manifest import load_course

pytestmark = [pytest.mark.kernel]

COURSE = load_course()
STEP_3, STEP_4, STEP_5, STEP_6, STEP_7 = (COURSE.steps[i] for i in (2, 3, 4, 5, 6))


@pytest.fixture
def work(tmp_path):
    """The finished lesson, as saved by a student who finished it."""
    return copy_folder(SOLUTIONS, tmp_path)


@pytest.fixture
def kernel(work):
    """A kernel in the lesson folder; stopped afterwards."""
    started = StudentKernel(work)
    try:
        yield started
    finally:
        started.close()


def source(work, step, cell_id):
    """Return a cell's source in the saved notebook."""
    cells = json.loads((work / step.notebook).read_text(encoding="utf-8"))["cells"]
    [cell] = [c for c in cells if c["id"] == cell_id]
    return "".join(cell["source"])


def save(work, step, cell_id, new_source):
    """Save the notebook with one cell's source changed, as File → Save Notebook would."""
    path = work / step.notebook
    notebook = json.loads(path.read_text(encoding="utf-8"))
    [cell] = [c for c in notebook["cells"] if c["id"] == cell_id]
    cell["source"] = new_source
    path.write_text(json.dumps(notebook), encoding="utf-8")


def run(kernel, work, step, cell_id, new_source=None):
    """Run a cell of `step` (its saved source, or `new_source` typed in the editor)."""
    return kernel.run(new_source or source(work, step, cell_id), cell_id)


def test_a_function_renamed_in_its_cell_is_named_not_judged(kernel, work):
    # Finding 1: call_once passed, was renamed and its cell run again; the check judged the old.
    run(kernel, work, STEP_6, "setup")
    answer = source(work, STEP_6, "call-once")
    run(kernel, work, STEP_6, "call-once")
    assert "checks of `call_once` passed" in run(kernel, work, STEP_6, "call-once-check").stdout
    renamed = answer.replace("def call_once(", "def call_once_twice(")
    run(kernel, work, STEP_6, "call-once", renamed)
    checked = run(kernel, work, STEP_6, "call-once-check")
    assert "passed" not in checked.stdout
    assert checked.stderr.startswith(
        "✗ `call_once` in this kernel comes from an earlier run of the exercise cell 'call-once'"
    )
    assert "(it now defines `call_once_twice`)" in checked.stderr
    broken = answer.replace(
        "def call_once(handler, arguments):", "def call_once(handler, arguments)"
    )
    run(kernel, work, STEP_6, "call-once", broken)
    checked = run(kernel, work, STEP_6, "call-once-check")
    assert "stopped before its first line (a syntax error, say)" in checked.stderr
    run(kernel, work, STEP_6, "call-once")
    assert "checks of `call_once` passed" in run(kernel, work, STEP_6, "call-once-check").stdout


def test_saved_but_not_checked_again_is_not_called_unsaved_and_its_check_is_shown(kernel, work):
    # Finding 2: changed, saved, check not run again: "unsaved changes, save it", forever.
    run(kernel, work, STEP_4, "setup")
    run(kernel, work, STEP_4, "budget-error")
    run(kernel, work, STEP_4, "budget-error-check")
    save(work, STEP_4, "budget-error", COUNTS_CHARACTERS)
    setup = run(kernel, work, STEP_5, "setup")
    assert "unsaved" not in setup.stdout + setup.stderr
    assert f"✗ {STEP_4.label}: `budget_error` as saved does not pass its check:" in setup.stderr


def test_step_7_names_step_4_for_step_4s_bug_and_the_setup_flags_it(kernel, work):
    # Finding 3: step 7's check told the student to count bytes in a correct invoke_tool.
    save(work, STEP_4, "budget-error", COUNTS_CHARACTERS)
    setup = run(kernel, work, STEP_7, "setup")
    assert f"✗ {STEP_4.label}: `budget_error` as saved does not pass its check:" in setup.stderr
    run(kernel, work, STEP_7, "invoke-tool")
    checked = run(kernel, work, STEP_7, "invoke-tool-check")
    assert checked.stderr.startswith(
        f"✗ `invoke_tool` calls `budget_error` from {STEP_4.label}, and that function does not "
        "pass its own check:"
    )


def test_crosses_go_to_stderr_and_warnings_are_red_in_the_setup_and_the_checks(kernel, work):
    # Finding 7: the setup printed ✗ in plain black among its ✓ lines.
    save(work, STEP_4, "budget-error", COUNTS_CHARACTERS)
    setup = run(kernel, work, STEP_5, "setup")
    assert "✗" not in setup.stdout
    assert setup.stderr.startswith("✗ ")
    unsaved = COUNTS_CHARACTERS.replace("len(text)", "len(text) + 0")
    run(kernel, work, STEP_4, "budget-error", unsaved)
    checked = run(kernel, work, STEP_4, "budget-error-check")
    warnings = [line for line in checked.stdout.splitlines() if "⚠" in line]
    assert warnings, checked
    assert all(line.startswith(f"{RED}⚠") for line in warnings), warnings


def test_separators_that_drop_spaces_get_a_hint(kernel, work):
    # Finding 8: expected and got differed only in spaces, with no word on why.
    run(kernel, work, STEP_3, "setup")
    compact = source(work, STEP_3, "encode-json").replace(
        "allow_nan=False)", 'allow_nan=False, separators=(",", ":"))'
    )
    run(kernel, work, STEP_3, "encode-json", compact)
    checked = run(kernel, work, STEP_3, "encode-json-check")
    assert "The two texts differ only in spaces" in checked.stderr
    assert "Leave out separators=." in checked.stderr


def test_except_exception_before_the_course_classes_gets_a_hint(kernel, work):
    # Finding 8: an `except Exception` placed before the course classes got no hint.
    run(kernel, work, STEP_7, "setup")
    swallowing = """def invoke_tool(request, tools, *, max_result_bytes=4096):
    request_id = request["id"]
    if request["tool"] not in tools:
        return make_envelope(request_id, error="unknown_tool")
    arguments = copy_arguments(request["arguments"])
    try:
        value = tools[request["tool"]](arguments)
    except Exception:
        return make_envelope(request_id, error="tool_failed")
    except NotFoundError:
        return make_envelope(request_id, error="not_found")
    text = encode_json(value)
    return make_envelope(request_id, value=fresh_value(text))
"""
    run(kernel, work, STEP_7, "invoke-tool", swallowing)
    checked = run(kernel, work, STEP_7, "invoke-tool-check")
    assert "`except Exception:` comes before `except NotFoundError:`" in checked.stderr
