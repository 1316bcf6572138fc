"""Score step: turn one RunResult into a Grade, category by category."""

from collections.abc import Iterable, Sequence
from dataclasses import replace

from course.contract import category_named, parts_of
from grader.model import (
    CATEGORIES,
    NOT_JUDGED,
    POINTS_PER_CATEGORY,
    CategoryScore,
    Grade,
    HiddenTest,
    RunResult,
    TestOutcome,
)

# A test that never got an outcome ends the way its run ended.
_MISSING_STATUS = {"timeout": "timeout", "crash": "crash"}
CENTS = 100


def score(result: RunResult, hidden_tests: Iterable[HiddenTest] | None = None) -> Grade:
    """Return the Grade for `result`.

    Each category is worth POINTS_PER_CATEGORY, shared among its judged hidden tests by the
    rule or code each judges (`weights`). With
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


def complete_outcomes(
    result: RunResult, hidden_tests: Iterable[HiddenTest]
) -> tuple[TestOutcome, ...]:
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
            case=test.case,
            part=test.part,
        )
        for test in hidden_tests
    )


def shares(total_cents: int, count: int) -> list[int]:
    """Split `total_cents` into `count` whole-cent shares that add up exactly, largest first."""
    if count == 0:
        return []
    base, extra = divmod(total_cents, count)
    return [base + 1 if index < extra else base for index in range(count)]


def weights(tests: Sequence[TestOutcome], total_cents: int, parts: Sequence[str] = ()) -> list[int]:
    """Share `total_cents` among the judged outcomes of one category; one not judged gets 0.

    The category's parts (its rules and codes, in the order of `parts`) share it equally, then
    each part's tests, then each test's cases: a rule is worth its share however many cases
    judge it. A part none of whose cases was judged has no share; the others share the whole.
    """
    cents = [0] * len(tests)
    judged = [index for index, test in enumerate(tests) if test.status != NOT_JUDGED]
    rank = {part: place for place, part in enumerate(parts)}
    judged.sort(key=lambda index: rank.get(tests[index].part, len(rank)))  # a stable sort
    by_part = _grouped(judged, [test.part for test in tests])
    names = [test.test_id.partition("[")[0] for test in tests]
    for part_cents, members in zip(shares(total_cents, len(by_part)), by_part, strict=True):
        by_test = _grouped(members, names)
        for test_cents, cases in zip(shares(part_cents, len(by_test)), by_test, strict=True):
            for index, case_cents in zip(cases, shares(test_cents, len(cases)), strict=True):
                cents[index] = case_cents
    return cents


def _grouped(indexes: Sequence[int], keys: Sequence[str]) -> list[list[int]]:
    """Return `indexes` grouped by their key, groups in the order their first member comes."""
    groups: dict[str, list[int]] = {}
    for index in indexes:
        groups.setdefault(keys[index], []).append(index)
    return list(groups.values())


def _category_score(category: str, outcomes: Sequence[TestOutcome]) -> CategoryScore:
    tests = [outcome for outcome in outcomes if outcome.category == category]
    judged = [outcome for outcome in tests if outcome.status != NOT_JUDGED]
    known = category in CATEGORIES
    cents = weights(
        tests, POINTS_PER_CATEGORY * CENTS, parts_of(category_named(category)) if known else ()
    )
    earned = sum(c for c, o in zip(cents, tests, strict=True) if o.status == "passed")
    return CategoryScore(
        category=category,
        passed=sum(outcome.status == "passed" for outcome in tests),
        total=len(tests),
        points=earned / CENTS,
        max_points=float(POINTS_PER_CATEGORY),
        judged=len(judged),
        worth=tuple(c / CENTS for c in cents),
    )


def points_of_tests(grade: Grade) -> list[tuple[float, float]]:
    """Return (earned, worth) for each outcome of `grade`, in order: they add up exactly."""
    return [(earned / CENTS, worth / CENTS) for earned, worth in cents_of_tests(grade)]


def cents_of_tests(grade: Grade) -> list[tuple[int, int]]:
    """Return (earned, worth) in whole cents for each outcome of `grade`, in order.

    Whole cents, so a report that adds up several outcomes (results.json's one entry per hidden
    test) still gets exactly its category's points, which adding floats would not promise.
    """
    worth = {c.category: iter(c.worth) for c in grade.categories}
    cents: list[tuple[int, int]] = []
    for outcome in grade.run.outcomes:
        points = next(worth[outcome.category], 0.0) if outcome.category in worth else 0.0
        value = round(points * CENTS)
        cents.append((value if outcome.status == "passed" else 0, value))
    return cents
