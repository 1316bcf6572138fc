"""Score step: turn one RunResult into a Grade, category by category."""

from dataclasses import replace

from grader.model import CATEGORIES, POINTS_PER_CATEGORY, CategoryScore, Grade, TestOutcome

# A test that never got an outcome ends the way its run ended.
_MISSING_STATUS = {"timeout": "timeout", "crash": "crash"}


def score(result, hidden_tests=None):
    """Return the Grade for `result`.

    Each category is worth POINTS_PER_CATEGORY, shared equally among its hidden tests. With
    `hidden_tests` (each with test_id, category and description), every hidden test gets an
    outcome even when the run ended early, so the report always lists every test.
    """
    if hidden_tests is not None:
        result = replace(result, outcomes=complete_outcomes(result, hidden_tests))
    categories = tuple(_category_score(c, result.outcomes) for c in CATEGORIES)
    return Grade(
        run=result,
        categories=categories,
        score=round(sum(c.points for c in categories), 2),
        max_score=float(POINTS_PER_CATEGORY * len(CATEGORIES)),
    )


def complete_outcomes(result, hidden_tests):
    """Return one outcome per hidden test, in the hidden tests' order."""
    by_id = {outcome.test_id: outcome for outcome in result.outcomes}
    missing_status = _MISSING_STATUS.get(result.status, "error")
    return tuple(
        by_id.get(test.test_id)
        or TestOutcome(
            test_id=test.test_id,
            category=test.category,
            status=missing_status,
            description=test.description,
        )
        for test in hidden_tests
    )


def _category_score(category, outcomes):
    tests = [outcome for outcome in outcomes if outcome.category == category]
    passed = sum(outcome.status == "passed" for outcome in tests)
    points = round(POINTS_PER_CATEGORY * passed / len(tests), 2) if tests else 0.0
    return CategoryScore(
        category=category,
        passed=passed,
        total=len(tests),
        points=points,
        max_points=float(POINTS_PER_CATEGORY),
    )


def points_per_test(category_score):
    """Return the points one test of a category is worth, as reports show it."""
    if not category_score.total:
        return 0.0
    return round(category_score.max_points / category_score.total, 2)
