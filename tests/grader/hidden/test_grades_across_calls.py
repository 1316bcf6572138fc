"""Bugs seen only across calls lose points in their own rule's category, and nowhere else.

Each buggy fixture below is right on any one call into a fresh copy of itself that is not
nested: before the suite had programs of calls and nested calls (issue 39), the state bugs and
the nesting bugs kept full marks, and the breaker lost points in four categories, as the
hand-written tests whose handler it skipped did not step aside for rule 7. Graded end to end
in one class, each must now lose points in the category of the one rule it breaks, and the
reference must keep every point.
"""

import shutil
from pathlib import Path

import pytest
from grader_cli import read_grades, run_grader

from grader.model import CATEGORIES

pytestmark = [pytest.mark.bwrap]

SUBMISSIONS = Path(__file__).resolve().parents[3] / "fixtures" / "submissions"
# The fixture, by the student name it is graded under, and the one category it must lose in.
STATE_BUGS = {
    "breaker": ("buggy/no_retry/breaker-opens-after-three-failures.py", "no_retry"),
    "default": ("buggy/ownership/shared-default-for-empty-arguments.py", "ownership"),
    "trusted": ("buggy/vocabulary/trusts-a-tool-after-one-good-result.py", "vocabulary"),
}
NESTING_BUGS = {
    "current-request": ("buggy/envelope/current-request-in-module-global.py", "envelope"),
    "budget": ("buggy/unicode_boundary/budget-in-module-global.py", "unicode_boundary"),
    "refuses": ("buggy/error_codes/refuses-nested-calls.py", "error_codes"),
}
BUGS = STATE_BUGS | NESTING_BUGS


@pytest.fixture(scope="module")
def grades(tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    shutil.copy(SUBMISSIONS / "correct" / "reference.py", folder / "reference.py")
    for student, (path, _) in BUGS.items():
        shutil.copy(SUBMISSIONS / path, folder / f"{student}.py")
    out = tmp_path_factory.mktemp("out")
    completed = run_grader("grade", folder, "--out", out, "--jobs", "1")
    assert completed.returncode == 0, completed.stderr
    return read_grades(out)


def lost(row):
    return [category for category in CATEGORIES if float(row[category]) < 10]


def test_the_reference_keeps_every_point(grades):
    assert grades["reference"]["score"] == grades["reference"]["max_score"]
    assert grades["reference"]["status"] == "completed"


@pytest.mark.parametrize("student", sorted(BUGS))
def test_a_bug_seen_only_across_calls_loses_points_in_its_rules_category_only(grades, student):
    assert grades[student]["status"] == "completed"
    assert lost(grades[student]) == [BUGS[student][1]]
