"""In the browser course, step 7's checks name the right step and rule for a struggling student.

The site `make lite` built is served by its own serve.py, in Chromium with no network. The
student's steps 1 to 6 are first saved as a careful student saves them (the solutions' exercise
cells, written into the site's browser storage by a cell run in notebook 07, which is quicker
than typing six notebooks and is what the setup cell reads either way). Then, in notebook 07,
the student types each mistake into the exercise cell and runs the setup, the exercise and the
check, as issue 42 tells them:

- an `invoke_tool` that cuts the JSON text to fit the budget is told rule 4 (result_too_large:
  refused, never cut) and rule 6, in `invoke_tool` itself, with step 5's correct `fresh_value`
  not blamed;
- with step 4 saved failing its check, an `invoke_tool` whose `except Exception:` comes before
  `except InvalidInputError:` is told its own bug first, and step 4 only after, as "Also: ...";
- saved so, `check_saved_work` shows step 7's own ✗ beside step 4's.

The buggy sources are tests/student_mistakes.py's, which the course's unit tests use too.
"""

import base64
import json

import pytest
from lite_pages import (
    LiteStudent,
    lite_site,  # noqa: F401 - a fixture
    offline_chromium,
)
from student_mistakes import CATCHES_EXCEPTION_FIRST, COUNTS_CHARACTERS, CUTS_TO_BUDGET

from course.manifest import load_course
from grader.paths import SOLUTIONS

pytestmark = [pytest.mark.browser, pytest.mark.bwrap, pytest.mark.slow]

COURSE = load_course()
STEP_4, STEP_7 = COURSE.steps[3], COURSE.steps[6]
NOTEBOOK = STEP_7.notebook
SETUP, CHECK, SAVED = "load_earlier_steps(", 'check("invoke_tool"', "check_saved_work("
WRITER = "# The earlier steps, as saved"


def saved_step(step, replace=None):
    """Return `step`'s notebook as saved with the solution's exercise cells (or `replace`)."""
    solution = json.loads((SOLUTIONS / COURSE.assignment / step.notebook).read_text("utf-8"))
    cells = [dict(c, outputs=[], execution_count=None) for c in solution["cells"]]
    cells = [c for c in cells if c.get("id") in step.exercises]
    if replace is not None:
        [cell] = cells
        cell["source"] = replace
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def writer(notebooks):
    """Return a cell's source that saves `notebooks` ({name: notebook}) beside notebook 07."""
    blob = base64.b64encode(json.dumps(notebooks).encode("utf-8")).decode("ascii")
    return (
        f"{WRITER}\nimport base64, json, pathlib\n"
        f"notebooks = json.loads(base64.b64decode('{blob}'))\n"
        "for name, notebook in notebooks.items():\n"
        "    pathlib.Path(name).write_text(json.dumps(notebook), encoding='utf-8')\n"
        "print('saved', len(notebooks), 'notebooks')\n"
    )


def rerun(student, source, marker):
    """Put `source` in the exercise cell (found by `marker`); run the setup, it and the check."""
    student.type_into(marker, source)
    student.run_cell(SETUP)
    student.run_cell(source.splitlines()[0])
    student.run_cell(CHECK, "not yet")
    return student.stderr(CHECK)


@pytest.fixture(scope="module")
def seen(lite_site, tmp_path_factory):  # noqa: F811 - the fixture imported above
    """What step 7's check and check_saved_work showed for each mistake, in one session."""
    browser = offline_chromium(tmp_path_factory.mktemp("lite-struggling"))
    student = LiteStudent(browser, lite_site)
    shown = {}
    try:
        student.open(NOTEBOOK)
        careful = {step.notebook: saved_step(step) for step in COURSE.steps[:6]}
        student.type_into("def invoke_tool(", writer(careful))
        student.run_cell(WRITER, "saved 6 notebooks")
        shown["cuts"] = rerun(student, CUTS_TO_BUDGET, WRITER)
        student.shot("lite-struggling-cuts-to-budget")

        failing_step_4 = {STEP_4.notebook: saved_step(STEP_4, COUNTS_CHARACTERS)}
        student.type_into("def invoke_tool(", writer(failing_step_4))
        student.run_cell(WRITER, "saved 1 notebooks")
        shown["except_order"] = rerun(student, CATCHES_EXCEPTION_FIRST, WRITER)
        student.shot("lite-struggling-except-order")

        student.save()
        student.run_cell(SAVED, "loaded as the grader loads them")
        shown["saved_work"] = student.stderr(SAVED)
        student.shot("lite-struggling-saved-work")
    finally:
        browser.driver.quit()
    return shown


def test_cutting_the_text_to_the_budget_is_told_as_rule_4_in_invoke_tool(seen):
    message = seen["cuts"]
    assert message.startswith(
        "✗ Results outside the vocabulary or over the budget are refused: not yet."
    ), message
    assert "was cut or rewritten instead of refused" in message
    assert "Rule 4: a value whose JSON text is more than max_result_bytes" in message
    assert "result_too_large" in message
    assert "Rule 6: a successful value is its JSON text decoded unchanged." in message
    assert "Fix this in `invoke_tool` itself, in 07-invoke-tool.ipynb." in message
    assert "05-ownership.ipynb" not in message and "fresh-value" not in message


def test_invoke_tools_own_bug_leads_and_the_failing_step_4_comes_after(seen):
    message = seen["except_order"]
    assert message.startswith("✗ Every failure gets its code: not yet."), message
    own = "In `invoke_tool`, `except Exception:` comes before `except InvalidInputError:`."
    also = "Also: `invoke_tool` calls `budget_error` from Step 4 (04-byte-budget.ipynb)"
    assert own in message and also in message
    assert message.index(own) < message.index(also)
    assert "Fix `budget_error`" not in message


def test_check_saved_work_shows_step_7s_own_miss_beside_step_4s(seen):
    err = seen["saved_work"]
    assert "✗ Step 4 (04-byte-budget.ipynb): `budget_error` as saved does not pass its check" in err
    assert (
        "✗ Step 7 (07-invoke-tool.ipynb): `invoke_tool` as saved does not pass its check: "
        "Every failure gets its code: not yet." in err
    )
    assert "calls `budget_error`" not in err
