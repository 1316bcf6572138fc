"""Builders shared by the tests of the class-wide files: a small catalogue, grades, summaries."""

from dataclasses import replace
from typing import NamedTuple

from grader.gradebook.summary import summarize
from grader.model import CATEGORIES, MISSING, RunResult, Submission, TestOutcome
from grader.score import score


class Hidden(NamedTuple):
    test_id: str
    category: str
    description: str
    case: str = ""


CATALOGUE = (
    Hidden("envelope/test_id[zero]", "envelope", "The id comes back <unchanged>.", "for 0"),
    Hidden("envelope/test_id[text]", "envelope", "The id comes back <unchanged>.", "for '0'"),
    Hidden("error_codes/test_unknown", "error_codes", "An unknown tool gives unknown_tool."),
    Hidden("ownership/test_copy", "ownership", "The handler gets its own copy."),
)


def grade_for(student, statuses, run_status="completed", path=None):
    """Return the Grade of a student whose catalogue tests ended with `statuses`, in order."""
    submission = Submission(student=student, path=path or f"{student}.py", kind="python", units=())
    outcomes = tuple(
        TestOutcome(test_id=t, category=c, status=s, description=d, case=k)
        for (t, c, d, k), s in zip(CATALOGUE, statuses, strict=True)
    )
    return score(RunResult(submission, outcomes, run_status), CATALOGUE)


def missing_grade(student):
    """Return the Grade of a rostered student who sent nothing."""
    submission = Submission(student=student, path="", kind="lessons", units=())
    return score(RunResult(submission, (), MISSING, "No submission."), CATALOGUE)


def summary_for(student, statuses, run_status="completed", **fields):
    """Return the StudentSummary of grade_for(...), with any field replaced."""
    summary = summarize(grade_for(student, statuses, run_status), CATALOGUE)
    return replace(summary, **fields)


def summary_with_points(student, points, **fields):
    """Return a summary with these category points (a list of 7) and their total as score."""
    base = summary_for(student, ["passed"] * len(CATALOGUE))
    assert len(points) == len(CATEGORIES)
    return replace(base, points=tuple(points), score=round(sum(points), 2), **fields)


CLASS = [
    summary_for("ada", ["passed"] * 4),
    summary_for("grace", ["passed", "failed", "passed", "failed"]),
    summary_for("linus", ["failed", "failed", "passed", "passed"]),
    summary_for("zed", ["timeout"] * 4, run_status="timeout"),
]
