"""One name per idea: a step's check, explorer and widget cell are named after its category.

The manifest links a step to the grading categories it teaches, and `Step.module` turns that
into the one name its code goes by, so a search for `unicode_boundary` finds the contract, the
hidden tests, the lesson's check and its explorer alike.
"""

import importlib

import nbformat
import pytest
from builders import COURSE, SOLUTIONS

from course.checks import CHECKS
from grader.paths import PROJECT_ROOT

pytestmark = []

COURSE_DIR = PROJECT_ROOT / "course"
# Modules beside the steps' checks, named for what they hold (blame: whose step a miss of step
# 7's check belongs to).
SHARED_CHECK_MODULES = {"__init__", "blame", "harness", "oracle", "visible"}
WIDGET_STEPS = [
    step for step in COURSE.all_steps if (COURSE_DIR / "widgets" / f"{step.module}.py").is_file()
]


def test_a_step_is_named_after_the_category_it_teaches_or_else_its_notebook():
    assert [step.module for step in COURSE.all_steps] == [
        "envelope",
        "error_codes",
        "vocabulary",
        "unicode_boundary",
        "ownership",
        "no_retry",
        "invoke_tool",
        "testing",
    ]


def test_every_check_and_explorer_module_is_a_steps_and_every_step_has_a_check():
    modules = {step.module for step in COURSE.all_steps}
    checks = {path.stem for path in (COURSE_DIR / "checks").glob("*.py")}
    widgets = {path.stem for path in (COURSE_DIR / "widgets").glob("*.py")} - {"__init__"}
    assert checks - SHARED_CHECK_MODULES == modules
    assert widgets <= modules
    assert len(WIDGET_STEPS) == 7


def test_no_course_module_shares_its_name_with_a_grader_module():
    # A name with two homes (run.py, cases.py) sends a reader to the wrong one.
    grader_names = {path.stem for path in (PROJECT_ROOT / "grader").rglob("*.py")}
    course_names = {path.stem for path in COURSE_DIR.rglob("*.py")}
    assert course_names & grader_names == {"__init__"}


def test_each_exercise_function_is_checked_by_its_steps_check_module():
    assert set(CHECKS) == {name for step in COURSE.steps for name in step.defines}
    for name, check in CHECKS.items():
        assert check.__module__ == f"course.checks.{COURSE.step_defining(name).module}"


@pytest.mark.parametrize("step", WIDGET_STEPS, ids=lambda step: step.module)
def test_a_steps_widget_cell_shows_its_explorer_under_the_same_name(step):
    module = importlib.import_module(f"course.widgets.{step.module}")
    explorer = f"{step.module}_explorer"
    assert callable(getattr(module, explorer))
    notebook = nbformat.read(SOLUTIONS / step.notebook, as_version=4)
    [cell] = [
        cell for cell in notebook.cells if cell.id == f"{step.module.replace('_', '-')}-widget"
    ]
    assert (
        cell.source
        == f"from course.widgets.{step.module} import {explorer}\n\n{explorer}(globals())"
    )
