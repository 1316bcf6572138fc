"""Builders shared by the tests of the score, report and class-wide steps: a small catalogue of
hidden tests, the grades its runs get, and summaries of them."""

from collections.abc import Sequence
from dataclasses import replace

from grader.model import (
    CATEGORIES,
    MISSING,
    NOT_JUDGED,
    Grade,
    HiddenTest,
    RunResult,
    Submission,
    TestOutcome,
)
from grader.reports.summary import summarize
from grader.score import score

CATALOGUE = (
    HiddenTest("envelope/test_id[zero]", "envelope", "The id comes back <unchanged>.", "for 0"),
    HiddenTest("envelope/test_id[text]", "envelope", "The id comes back <unchanged>.", "for '0'"),
    HiddenTest("error_codes/test_unknown", "error_codes", "An unknown tool gives unknown_tool."),
    HiddenTest("ownership/test_copy", "ownership", "The handler gets its own copy."),
)


def grade_for(
    student: str,
    statuses: Sequence[str],
    run_status: str = "completed",
    *,
    catalogue: Sequence[HiddenTest] = CATALOGUE,
    reason: str = "",
    output: str = "",
    decided_by: str = "",
    **submission_fields: object,
) -> Grade:
    """Return the Grade of a student whose run of `catalogue` ended with `statuses`, in order.

    A run that stopped early gives fewer statuses than there are tests. `output` is what the
    student's code printed in every test; `decided_by`, the category every step aside (a
    not_judged status) stepped aside for; `submission_fields` replace the Submission's own
    (a python file named for the student, by default).
    """
    submission = Submission(student=student, path=f"{student}.py", kind="python", units=())
    submission = replace(submission, **submission_fields)
    outcomes = tuple(
        TestOutcome(
            test.test_id,
            test.category,
            status,
            test.description,
            output,
            test.case,
            decided_by=decided_by if status == NOT_JUDGED else "",
        )
        for test, status in zip(catalogue, statuses, strict=False)
    )
    return score(RunResult(submission, outcomes, run_status, reason), catalogue)


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
