"""`python -m grader selfcheck` holds the grader to the known answers of the fixture catalogue."""

import subprocess
import sys
from pathlib import Path

from grader import model
from grader.model import RunResult, Submission
from grader.score import score
from grader.selfcheck import Expectation, check, load_expectations

PROJECT = Path(__file__).resolve().parents[2]


def grade_with(points_lost_in=(), status="completed", test_status="failed"):
    outcomes = tuple(
        model.TestOutcome(
            test_id=category,
            category=category,
            status=test_status if category in points_lost_in else "passed",
            description=category,
        )
        for category in model.CATEGORIES
    )
    return score(RunResult(Submission("x", "x.py", "python", ()), outcomes, status))


def test_a_buggy_submission_must_lose_points_in_its_category_and_only_there():
    expectation = Expectation("x", PROJECT / "x.py", "fails", must_fail=("redaction",))
    assert check(expectation, grade_with(["redaction"])) == ""
    assert "envelope" in check(expectation, grade_with(["redaction", "envelope"]))
    assert check(expectation, grade_with([])) != ""


def test_full_marks_and_zero_are_checked_against_the_score_and_the_status():
    assert check(Expectation("x", PROJECT, "full"), grade_with([])) == ""
    assert check(Expectation("x", PROJECT, "full"), grade_with(["no_retry"])) != ""
    assert check(Expectation("x", PROJECT, "zero"), grade_with(model.CATEGORIES)) == ""
    crashed = grade_with(model.CATEGORIES, status="crash")
    assert check(Expectation("x", PROJECT, "zero"), crashed) != ""


def test_a_label_matches_the_run_status_or_a_test_status():
    timed_out = grade_with(["no_retry"], test_status="timeout")
    assert check(Expectation("x", PROJECT, "label", labels=("timeout",)), timed_out) == ""
    assert "labels seen" in check(Expectation("x", PROJECT, "label", labels=("crash",)), timed_out)


def test_categories_to_keep_must_earn_full_marks_whatever_the_kind():
    expectation = Expectation("x", PROJECT, "label", keeps=("envelope",), labels=("failed",))
    assert check(expectation, grade_with(["redaction"])) == ""
    assert check(expectation, grade_with(["envelope"])) != ""


def test_a_zero_score_with_a_label_accepts_a_run_that_ended_early():
    crashed = grade_with(model.CATEGORIES, status="crash", test_status="crash")
    assert check(Expectation("x", PROJECT, "zero", labels=("crash",)), crashed) == ""
    assert check(Expectation("x", PROJECT, "zero", labels=("timeout",)), crashed) != ""


def test_the_catalogue_gives_every_fixture_an_expectation_besides_reference_and_lessons():
    expectations = load_expectations()
    kinds = {e.student: e.score for e in expectations}
    assert kinds["reference"] == "full"
    assert kinds["untouched-lessons"] == "zero"
    assert all(e.path.exists() for e in expectations)
    buggy = [e for e in expectations if "buggy" in e.path.parts]
    assert buggy
    assert all(e.path.parent.name in e.must_fail for e in buggy)
    assert len({e.student for e in expectations}) == len(expectations)


def test_the_selfcheck_command_passes():
    completed = subprocess.run(
        [sys.executable, "-m", "grader", "selfcheck"],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "Self-check passed" in completed.stdout
