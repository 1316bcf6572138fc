"""results.json's hidden tests: one entry per hidden test, however many cases it runs.

A hidden test is a test function of grader/hidden/test_*.py, except the per-rule test over the
generated scenarios (RULE_TEST), each of whose cases judges a rule of its own and so is a test of
its own. An entry per case made hundreds, more than a student reads on Gradescope; an entry per
test is about seventy, each saying how many of its cases failed and showing the first.

An entry's points are its cases' points, added up in whole cents: a category's entries still add
up to exactly its points, and all of them to the score.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from course.manifest import Course
from grader.model import NOT_JUDGED, RULE_TEST, SETTLED, Grade, TestOutcome
from grader.reports import feedback, hints
from grader.score import CENTS, cents_of_tests

# Added to the name of a test none of whose cases could be judged, so the list of tests says it
# before its output is opened: Gradescope knows only "passed" and "failed" as a test's status.
NOT_JUDGED_NAME = " (not judged)"


@dataclass
class HiddenTestResult:
    """One hidden test's cases for one student, and the whole cents they earned and are worth."""

    key: str
    outcomes: list[TestOutcome] = field(default_factory=list)
    earned: int = 0
    worth: int = 0

    @property
    def category(self) -> str:
        return self.outcomes[0].category

    @property
    def failing(self) -> list[TestOutcome]:
        """Its cases that count against it (anything but passed or stepped aside)."""
        return [outcome for outcome in self.outcomes if outcome.status not in SETTLED]

    @property
    def aside(self) -> list[TestOutcome]:
        """Its cases that stepped aside: they count neither for nor against it."""
        return [outcome for outcome in self.outcomes if outcome.status == NOT_JUDGED]

    @property
    def judged(self) -> bool:
        return len(self.aside) < len(self.outcomes)


def hidden_test_of(test_id: str) -> str:
    """Return the hidden test a case belongs to ("category/name"), from the case's test id.

    The per-rule test over the generated scenarios keeps its case ("[rule]"): it judges one rule.
    """
    name = test_id.split("[", 1)[0]
    return test_id if name.rpartition("/")[2] == RULE_TEST else name


def count_hidden_tests(test_ids: Iterable[str]) -> int:
    """Return how many hidden tests (results.json entries) these case ids make."""
    return len({hidden_test_of(test_id) for test_id in test_ids})


def hidden_test_results(grade: Grade) -> list[HiddenTestResult]:
    """Return each hidden test of `grade` with its cases and points, in the order of its cases."""
    tests: dict[str, HiddenTestResult] = {}
    for outcome, (earned, worth) in zip(grade.run.outcomes, cents_of_tests(grade), strict=True):
        key = hidden_test_of(outcome.test_id)
        test = tests.setdefault(key, HiddenTestResult(key))
        test.outcomes.append(outcome)
        test.earned += earned
        test.worth += worth
    return list(tests.values())


def entries(grade: Grade, course: Course | None = None) -> list[dict[str, Any]]:
    """Return results.json's tests for `grade`: one per hidden test, in Gradescope's format."""
    completed = grade.run.status == "completed"
    tests = hidden_test_results(grade)
    return [
        {
            "name": name if test.judged else name + NOT_JUDGED_NAME,
            "score": test.earned / CENTS,
            "max_score": test.worth / CENTS,
            # A test that judged nothing did not pass: shown as failed, at 0 of 0 points.
            "status": "passed" if test.judged and not test.failing else "failed",
            "tags": [test.category],
            "visibility": "visible",
            "output": output(test, completed, course),
        }
        for name, test in zip(_unique_names(tests), tests, strict=True)
    ]


def output(test: HiddenTestResult, completed: bool = True, course: Course | None = None) -> str:
    """Return what a test's entry says: how many cases failed, the first one, and its hint.

    Then, if some cases stepped aside, which rule's fault decided them. Empty for a test whose
    every case passed. The hint is the one a failed case has everywhere (grader.reports.hints).
    """
    total = len(test.outcomes)
    lines: list[str] = []
    if test.failing:
        first = test.failing[0]
        if total > 1:
            said = f"{len(test.failing)} of its {total} cases failed"
            words = [feedback.STATUS_WORDS.get(o.status, o.status) for o in test.failing]
            statuses = ", ".join(dict.fromkeys(words))
            # How, unless they simply failed: "(timed out)", "(failed, crashed)".
            lines.append(f"{said}." if statuses == "failed" else f"{said} ({statuses}).")
            if first.case:
                lines.append(f"First failing case: {first.case}.")
        lines.append(hints.outcome_hint(first, completed, course))
    if test.aside:
        deciders = [outcome.decided_by for outcome in test.aside]
        lines.append(hints.not_judged_hint(test.category, deciders, len(test.aside), total))
    return "\n".join(lines)


def _unique_names(tests: Sequence[HiddenTestResult]) -> list[str]:
    """Return a name per test; a repeated name gets a numbered suffix, in test order."""
    names: list[str] = []
    seen: dict[str, int] = {}
    for test in tests:
        first = test.outcomes[0]
        # A per-rule test is named with its rule; any other test by its sentence alone.
        said = feedback.case_title(first) if test.key == first.test_id else first.description
        name = f"{test.category}: {said}"
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return names
