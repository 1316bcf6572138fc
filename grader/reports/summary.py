"""What the class-wide reports keep of each student: a few numbers and one byte per hidden test.

    summary = summarize(grade, catalogue, seconds=1.8)
    summary.failed_tests()    # indexes, into the catalogue, of the tests answered wrongly

A Grade holds every outcome of every hidden test, with its printed output; the class report,
the item-analysis export and the LMS files need far less: category points, status, the time
taken, the late penalty and how each hidden test ended. A summary holds just that, with each
test's status as one byte, so what a run keeps per student stays small however large the class
(a few hundred bytes for a few hundred hidden tests), and the class files are built from
summaries alone.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from grader.model import CATEGORIES, MISSING, POINTS_PER_CATEGORY, TEST_STATUSES, Grade
from grader.reports.feedback import format_points

NO_VERDICT = 255  # the byte for a hidden test this student has no outcome for


class CatalogueTest(Protocol):
    """A hidden test as the catalogue (grader.batch.run.hidden_tests) lists it."""

    @property
    def test_id(self) -> str: ...

    @property
    def category(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def case(self) -> str: ...


@dataclass(frozen=True, slots=True)
class StudentSummary:
    """One student's result, as much as the class-wide reports need."""

    student: str
    status: str  # the run's status (grader.model.RUN_STATUSES)
    score: float  # the grader's verdict, before any late penalty
    max_score: float
    points: tuple[float, ...]  # per category, in CATEGORIES order
    # One byte per catalogue test: its status's index in TEST_STATUSES, or NO_VERDICT.
    verdicts: bytes = b""
    seconds: float | None = None  # time the grader spent on this student, if measured this run
    late_penalty: float = 0.0
    seconds_late: float = 0.0
    submitted: str = ""  # when the submission was made (ISO 8601), if known
    has_feedback: bool = True  # whether DIR/<student>/feedback.html was written
    extended_due: str = ""  # the student's own due time (ISO 8601), if they had an extension

    @property
    def final_score(self) -> float:
        """Return the score after the late penalty, never below 0."""
        return max(0.0, round(self.score - self.late_penalty, 2))

    def status_of(self, index: int) -> str | None:
        """Return how catalogue test `index` ended for this student, or None without an outcome."""
        if index >= len(self.verdicts) or self.verdicts[index] == NO_VERDICT:
            return None
        return TEST_STATUSES[self.verdicts[index]]

    def tests_with(self, status: str) -> list[int]:
        """Return the catalogue indexes of the tests that ended with `status`."""
        code = TEST_STATUSES.index(status)
        return [index for index, verdict in enumerate(self.verdicts) if verdict == code]

    def failed_tests(self) -> list[int]:
        """Return the catalogue indexes of the tests this student answered wrongly."""
        return self.tests_with("failed")


def summarize(
    grade: Grade,
    catalogue: Sequence[CatalogueTest] = (),
    *,
    seconds: float | None = None,
    has_feedback: bool = True,
) -> StudentSummary:
    """Return the summary of `grade`; raise TypeError or ValueError if a number is not one."""
    points = {c.category: c.points for c in grade.categories}
    # A student who sent nothing has no verdict on any test, not a failure of each.
    outcomes = () if grade.run.status == MISSING else grade.run.outcomes
    by_id = {outcome.test_id: outcome.status for outcome in outcomes}
    verdicts = bytes(
        TEST_STATUSES.index(by_id[test.test_id]) if test.test_id in by_id else NO_VERDICT
        for test in catalogue
    )
    return StudentSummary(
        student=grade.run.submission.student,
        status=grade.run.status,
        score=_number(grade.score),
        max_score=_number(grade.max_score),
        points=tuple(_number(points.get(category, 0.0)) for category in CATEGORIES),
        verdicts=verdicts,
        seconds=seconds,
        has_feedback=has_feedback and grade.run.status != MISSING,
    )


def error_summary(student: str, has_feedback: bool = False) -> StudentSummary:
    """Return the summary of a student whose result the reports cannot show: an error, 0 points."""
    zero = tuple(0.0 for _ in CATEGORIES)
    top = float(POINTS_PER_CATEGORY * len(CATEGORIES))
    return StudentSummary(student, "error", 0.0, top, zero, has_feedback=has_feedback)


def _number(value: float) -> float:
    """Return `value` as a finite float; raise TypeError or ValueError if it is none."""
    number = float(value)  # TypeError for None, a result no report can show
    if not math.isfinite(number):
        raise ValueError(f"{value!r} is not a finite number of points")
    return number


def one_line_comment(summary: StudentSummary) -> str:
    """Return a one-line comment for the gradebook: the score, what lost points, and lateness."""
    if summary.status == MISSING:
        return "No submission was received."
    parts = [f"{format_points(summary.score)}/{format_points(summary.max_score)}."]
    if summary.status != "completed":
        parts.append(f"Grading stopped early ({summary.status}): see the feedback page.")
    lost = [
        f"{category} {format_points(points)}/{POINTS_PER_CATEGORY}"
        for category, points in zip(CATEGORIES, summary.points, strict=True)
        if points < POINTS_PER_CATEGORY
    ]
    if summary.score >= summary.max_score:
        parts.append("Every hidden test passed.")
    elif summary.score == 0:
        parts.append("No points yet: see the feedback page.")
    else:
        parts.append("Points lost in " + ", ".join(lost) + ".")
    if summary.extended_due:
        parts.append(extension_words(summary.extended_due))
    if summary.late_penalty:
        parts.append(
            f"Late by {_duration(summary.seconds_late)}: "
            f"{format_points(summary.late_penalty)} off, "
            f"{format_points(summary.final_score)} counted."
        )
    elif summary.seconds_late:
        parts.append(f"Late by {_duration(summary.seconds_late)}.")
    return " ".join(parts)


def extension_words(extended_due: str) -> str:
    """Return the comment's sentence for a student with an extension due at `extended_due`."""
    return f"Extension: due {extended_due}."


def _duration(seconds: float) -> str:
    """Return a lateness in words: minutes under two hours, else hours, else days."""
    minutes = math.ceil(seconds / 60)
    if minutes < 120:
        return f"{minutes} min"
    hours = seconds / 3600
    if hours < 48:
        return f"{hours:.1f} h"
    return f"{hours / 24:.1f} days"
