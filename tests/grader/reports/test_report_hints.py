"""Feedback sends each failed hidden test to the lesson section teaching it, quoting its heading.

The issue: a lone surrogate, graded under vocabulary, was sent to step 3, though step 4 teaches
it and `budget_error` handles it; and the titles quoted were headings of no notebook.
"""

import ast
import json
import re
import shutil

import pytest
from grader_cli import run_grader

from course.manifest import load_course
from grader.hidden import results
from grader.paths import HIDDEN_TESTS, LESSONS, SOLUTIONS
from grader.reports.hints import CATEGORY_TAUGHT_IN, TAUGHT_IN, place, taught_in

pytestmark = []

COURSE = load_course()
SURROGATE_BLIND = '''def budget_error(text, max_result_bytes):
    """Counts the bytes, but lets text UTF-8 cannot encode through (surrogatepass)."""
    if len(text.encode("utf-8", "surrogatepass")) > max_result_bytes:
        return "result_too_large"
    return None
'''


def headings(notebook):
    """Return the section headings of a lesson notebook, as its markdown writes them."""
    cells = json.loads((LESSONS / COURSE.assignment / notebook).read_text("utf-8"))["cells"]
    lines = "".join("".join(c["source"]) + "\n" for c in cells if c["cell_type"] == "markdown")
    return {line.lstrip("#").strip() for line in lines.splitlines() if line.startswith("#")}


def hidden_tests():
    """Return the names of every hidden test function."""
    names = set()
    for module in HIDDEN_TESTS.glob("test_*.py"):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        names |= {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    return names


@pytest.mark.parametrize(
    "notebook, heading", sorted({*CATEGORY_TAUGHT_IN.values(), *TAUGHT_IN.values()})
)
def test_every_section_quoted_is_a_heading_of_its_lesson_notebook(notebook, heading):
    assert heading in headings(notebook)


def test_every_test_or_case_named_exists_in_the_hidden_suite():
    names = hidden_tests()
    for key in TAUGHT_IN:
        name, _, case = key.partition("[")
        assert name in names, key
        if case:
            assert case.rstrip("]") in results.OUTSIDE, key


def test_a_lone_surrogate_is_sent_to_step_4_not_to_step_3():
    test_id = "vocabulary/test_value_outside_vocabulary_is_invalid_result[lone_surrogate]"
    assert taught_in(test_id, "vocabulary") == (
        "04-byte-budget.ipynb",
        "Text that cannot be encoded at all",
    )
    tuple_id = "vocabulary/test_value_outside_vocabulary_is_invalid_result[tuple]"
    assert taught_in(tuple_id, "vocabulary")[0] == "03-json-vocabulary.ipynb"
    assert place(*taught_in(test_id, "vocabulary")) == (
        "Step 4, “Text that cannot be encoded at all” (04-byte-budget.ipynb)"
    )


@pytest.mark.bwrap
def test_a_student_whose_budget_error_lets_surrogates_through_is_sent_to_step_4(tmp_path):
    # As a student would: the finished lesson, step 4 saved with the surrogate-blind version.
    folder = tmp_path / "ada"
    shutil.copytree(SOLUTIONS / COURSE.assignment, folder)
    step_4 = folder / COURSE.steps[3].notebook
    notebook = json.loads(step_4.read_text(encoding="utf-8"))
    [cell] = [c for c in notebook["cells"] if c["id"] == "budget-error"]
    cell["source"] = SURROGATE_BLIND
    step_4.write_text(json.dumps(notebook), encoding="utf-8")
    out = tmp_path / "grades"
    completed = run_grader("grade", folder, "--out", out)
    assert completed.returncode == 0, completed.stderr
    feedback = (out / "ada" / "feedback.md").read_text(encoding="utf-8")
    section = feedback.split("### vocabulary", 1)[1].split("###", 1)[0]
    assert "Step 4, “Text that cannot be encoded at all” (04-byte-budget.ipynb)" in section
    assert "Step 3" not in section
    assert re.search(r"lone .*surrogate", section)
