"""The score step shares each category's points among its judged hidden tests, in whole cents."""

from grader import model
from grader.model import CATEGORIES, POINTS_PER_CATEGORY, HiddenTest, RunResult, Submission
from grader.score import cents_of_tests, points_of_tests, score, shares

pytestmark = []

SUBMISSION = Submission(student="ada", path="ada.py", kind="python", units=())


HIDDEN = [
    HiddenTest("envelope-1", "envelope", "keeps the id"),
    HiddenTest("envelope-2", "envelope", "has four keys"),
    HiddenTest("envelope-3", "envelope", "ok is a bool"),
    HiddenTest("codes-1", "error_codes", "unknown tool"),
]


def outcome(test_id, category, status):
    return model.TestOutcome(test_id=test_id, category=category, status=status, description=test_id)


def category(grade, name):
    return next(c for c in grade.categories if c.category == name)


def test_a_category_earns_the_cents_of_its_passed_tests():
    outcomes = (
        outcome("envelope-1", "envelope", "passed"),
        outcome("envelope-2", "envelope", "failed"),
        outcome("envelope-3", "envelope", "timeout"),
        outcome("codes-1", "error_codes", "passed"),
    )
    grade = score(RunResult(SUBMISSION, outcomes, "completed"), HIDDEN)
    envelope = category(grade, "envelope")
    # 10 points in cents over three tests: 3.34, 3.33, 3.33; the first one passed.
    assert (envelope.passed, envelope.total, envelope.points) == (1, 3, 3.34)
    assert category(grade, "error_codes").points == POINTS_PER_CATEGORY
    assert grade.score == 13.34
    assert grade.max_score == POINTS_PER_CATEGORY * len(CATEGORIES)


def test_categories_are_listed_in_the_contract_order():
    grade = score(RunResult(SUBMISSION, (), "completed"), HIDDEN)
    assert tuple(c.category for c in grade.categories) == CATEGORIES


def test_tests_a_stopped_run_never_reached_end_the_way_the_run_ended():
    run = RunResult(SUBMISSION, (outcome("envelope-1", "envelope", "passed"),), "timeout")
    grade = score(run, HIDDEN)
    assert [o.status for o in grade.run.outcomes] == ["passed", "timeout", "timeout", "timeout"]
    assert [o.description for o in grade.run.outcomes][1:] == [h.description for h in HIDDEN][1:]


def test_an_unreadable_submission_scores_zero_with_every_test_listed_as_an_error():
    grade = score(RunResult(SUBMISSION, (), "unreadable", reason="empty"), HIDDEN)
    assert grade.score == 0
    assert {o.status for o in grade.run.outcomes} == {"error"}
    assert len(grade.run.outcomes) == len(HIDDEN)


def test_shares_are_whole_cents_that_add_up_exactly():
    assert shares(1000, 3) == [334, 333, 333]
    assert sum(shares(1000, 289)) == 1000
    assert shares(1000, 0) == []


def test_the_points_of_every_test_add_up_to_the_score():
    statuses = ["passed", "failed", "passed"]
    outcomes = tuple(
        outcome(f"envelope-{n}", "envelope", status) for n, status in enumerate(statuses, 1)
    )
    grade = score(RunResult(SUBMISSION, outcomes, "completed"), HIDDEN)
    points = points_of_tests(grade)
    assert [worth for _, worth in points] == [3.34, 3.33, 3.33, 10.0]
    assert round(sum(earned for earned, _ in points), 2) == grade.score == 6.67


def test_the_cents_of_every_test_are_whole_and_add_up_exactly():
    statuses = ["passed", "failed", "passed"]
    outcomes = tuple(
        outcome(f"envelope-{n}", "envelope", status) for n, status in enumerate(statuses, 1)
    )
    grade = score(RunResult(SUBMISSION, outcomes, "completed"), HIDDEN)
    assert cents_of_tests(grade) == [(334, 334), (0, 333), (333, 333), (0, 1000)]
    assert [(e / 100, w / 100) for e, w in cents_of_tests(grade)] == points_of_tests(grade)


def test_a_test_that_stepped_aside_counts_neither_for_nor_against_its_category():
    outcomes = (
        outcome("envelope-1", "envelope", "passed"),
        outcome("envelope-2", "envelope", model.NOT_JUDGED),
        outcome("envelope-3", "envelope", "failed"),
    )
    grade = score(RunResult(SUBMISSION, outcomes, "completed"), HIDDEN)
    envelope = category(grade, "envelope")
    assert (envelope.passed, envelope.judged, envelope.total, envelope.points) == (1, 2, 3, 5.0)
    assert [worth for _, worth in points_of_tests(grade)][:3] == [5.0, 0.0, 5.0]


def test_a_category_with_no_judged_test_earns_nothing():
    outcomes = tuple(outcome(f"envelope-{n}", "envelope", model.NOT_JUDGED) for n in range(1, 4))
    grade = score(RunResult(SUBMISSION, outcomes, "completed"), HIDDEN)
    assert category(grade, "envelope").points == 0.0


def test_scoring_the_same_result_twice_gives_equal_grades():
    run = RunResult(SUBMISSION, (outcome("codes-1", "error_codes", "passed"),), "completed")
    assert score(run, HIDDEN) == score(run, HIDDEN)


def parted(test_id, part, status="passed"):
    return model.TestOutcome(test_id, "error_codes", status, test_id, part=part)


def test_each_rule_or_code_is_worth_its_share_whatever_its_number_of_cases():
    """Twelve cases of one code and one case of rule 8 are worth 5 points each."""
    cases = [parted(f"error_codes/test_codes[{n}]", "exception codes") for n in range(12)]
    outcomes = (*cases, parted("error_codes/test_raises", "rule 8", "failed"))
    grade = score(RunResult(SUBMISSION, outcomes, "completed"))
    assert category(grade, "error_codes").points == 5.0
    worth = [w for _, w in points_of_tests(grade)]
    assert worth[-1] == 5.0 and round(sum(worth[:12]), 2) == 5.0


def test_inside_a_part_each_test_shares_equally_then_its_cases():
    """Two tests of one rule: one with four cases, one with one; each test is worth half."""
    cases = [parted(f"error_codes/test_many[{n}]", "rule 8") for n in range(4)]
    outcomes = (*cases, parted("error_codes/test_one", "rule 8", "failed"))
    grade = score(RunResult(SUBMISSION, outcomes, "completed"))
    assert [w for _, w in points_of_tests(grade)] == [1.25, 1.25, 1.25, 1.25, 5.0]
    assert category(grade, "error_codes").points == 5.0


def test_a_part_none_of_whose_tests_was_judged_leaves_its_share_to_the_others():
    outcomes = (
        parted("error_codes/test_raises", "rule 8", model.NOT_JUDGED),
        parted("error_codes/test_codes", "exception codes"),
    )
    grade = score(RunResult(SUBMISSION, outcomes, "completed"))
    assert category(grade, "error_codes").points == POINTS_PER_CATEGORY
