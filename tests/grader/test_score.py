"""The score step shares each category's points equally among its hidden tests."""

from typing import NamedTuple

from grader import model
from grader.model import CATEGORIES, POINTS_PER_CATEGORY, RunResult, Submission
from grader.score import points_per_test, score

SUBMISSION = Submission(student="ada", path="ada.py", kind="python", units=())


class Hidden(NamedTuple):
    test_id: str
    category: str
    description: str


HIDDEN = [
    Hidden(*entry)
    for entry in [
        ("envelope-1", "envelope", "keeps the id"),
        ("envelope-2", "envelope", "has four keys"),
        ("envelope-3", "envelope", "ok is a bool"),
        ("codes-1", "error_codes", "unknown tool"),
    ]
]


def outcome(test_id, category, status):
    return model.TestOutcome(test_id=test_id, category=category, status=status, description=test_id)


def category(grade, name):
    return next(c for c in grade.categories if c.category == name)


def test_a_category_earns_its_share_of_passed_tests_rounded_to_two_decimals():
    outcomes = (
        outcome("envelope-1", "envelope", "passed"),
        outcome("envelope-2", "envelope", "failed"),
        outcome("envelope-3", "envelope", "timeout"),
        outcome("codes-1", "error_codes", "passed"),
    )
    grade = score(RunResult(SUBMISSION, outcomes, "completed"), HIDDEN)
    envelope = category(grade, "envelope")
    assert (envelope.passed, envelope.total, envelope.points) == (1, 3, 3.33)
    assert category(grade, "error_codes").points == POINTS_PER_CATEGORY
    assert grade.score == 13.33
    assert grade.max_score == POINTS_PER_CATEGORY * len(CATEGORIES)


def test_categories_are_listed_in_the_contract_order():
    grade = score(RunResult(SUBMISSION, (), "completed"), HIDDEN)
    assert tuple(c.category for c in grade.categories) == CATEGORIES


def test_tests_a_stopped_run_never_reached_end_the_way_the_run_ended():
    run = RunResult(SUBMISSION, (outcome("envelope-1", "envelope", "passed"),), "timeout")
    grade = score(run, HIDDEN)
    assert [o.status for o in grade.run.outcomes] == ["passed", "timeout", "timeout", "timeout"]
    assert [o.description for o in grade.run.outcomes][1:] == [d for _, _, d in HIDDEN][1:]


def test_an_unreadable_submission_scores_zero_with_every_test_listed_as_an_error():
    grade = score(RunResult(SUBMISSION, (), "unreadable", reason="empty"), HIDDEN)
    assert grade.score == 0
    assert {o.status for o in grade.run.outcomes} == {"error"}
    assert len(grade.run.outcomes) == len(HIDDEN)


def test_one_test_is_worth_the_category_points_over_its_test_count():
    grade = score(RunResult(SUBMISSION, (), "completed"), HIDDEN)
    assert points_per_test(category(grade, "envelope")) == 3.33
    assert points_per_test(category(grade, "vocabulary")) == 0.0


def test_scoring_the_same_result_twice_gives_equal_grades():
    run = RunResult(SUBMISSION, (outcome("codes-1", "error_codes", "passed"),), "completed")
    assert score(run, HIDDEN) == score(run, HIDDEN)
