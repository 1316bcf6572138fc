"""What Gradescope shows a student: results.json's tests, overall output and upload checks."""

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from course.carry.assemble import ExerciseCell
from course.manifest import Course, load_course
from grader.integrations.gradescope import BundleSettings
from grader.integrations.visible_checks import VisibleCheck
from grader.model import Grade

ALWAYS = "visible"  # the upload checks: a student learns at once whether the upload was read


WHEN_SHOWN = {
    "after_due_date": "after the due date",
    "after_published": "when your teacher publishes the grades",
}


def gradescope_results(
    results: str,
    grade: Grade,
    settings: BundleSettings,
    course: Course | None = None,
    visible: Sequence[VisibleCheck] = (),
) -> dict[str, Any]:
    """Return the results.json document Gradescope gets, from the one `grade` writes.

    The hidden tests keep their points and hints and take the visibility the instructor chose;
    before them come the upload checks and the course's visible checks (`visible`), worth no
    points and always visible: what a student sees at once is what the notebooks' checks say.
    """
    document: dict[str, Any] = json.loads(results)
    for test in document["tests"]:
        test["visibility"] = settings.hidden_visibility
    shown = [_check(check.title, check.passed, check.output) for check in visible]
    document["tests"] = [*upload_checks(grade, course), *shown, *document["tests"]]
    document.pop("visibility", None)  # each test says when it is shown
    document["output"] = _overall_output(document["output"], settings.hidden_visibility)
    return document


def _overall_output(summary: str, visibility: str) -> str:
    """Return the text shown above the tests: the summary, unless it would tell a hidden score.

    Gradescope shows this text at once. It hides the total score while tests wait for the due
    date or for publishing; with "hidden" tests it still shows the total, never the tests.
    """
    if visibility == "visible":
        return summary
    checks = (
        "The checks below say whether your upload was read, whether your code ran, and what "
        "the visible checks of your notebooks say about it."
    )
    if visibility == "hidden":
        score = summary.split("\n", 1)[0]
        return f"{score} The result of each hidden test is not shown. {checks}"
    return (
        "Your work was graded. Your score and the result of each hidden test will be shown "
        f"{WHEN_SHOWN[visibility]}. {checks}"
    )


def upload_checks(grade: Grade, course: Course | None = None) -> list[dict[str, Any]]:
    """Return the visible, 0-point tests saying what was found in the upload and read.

    A lessons folder gets one per lesson step (its exercise cells were found), any other upload
    one for the file; then one says whether grading ran to the end. They tell a student at once
    that Gradescope graded the work they meant to upload, and reveal nothing of the hidden tests.
    """
    course = course or load_course()
    submission = grade.run.submission
    checks: list[dict[str, Any]] = []
    if submission.kind == "lessons" and submission.error is None:
        labels = {unit.label for unit in submission.units}
        for step in course.steps:
            missing = [
                cell for cell in step.exercises if ExerciseCell(step, cell, "").label not in labels
            ]
            problems = [p for p in submission.problems if p.startswith(step.label)]
            said = problems or [f"The exercise cell '{cell}' was not read." for cell in missing]
            found = f"{step.label}: every exercise cell was found and read."
            checks.append(_check(f"Upload: {step.label}", not said, "\n".join(said) or found))
    else:
        name = Path(submission.path).name
        said = [text for text in (submission.error, *submission.problems) if text]
        read = f"{name} was found and read."
        checks.append(_check(f"Upload: {name}", not said, "\n".join(said) or read))
    run = grade.run
    ran = run.status == "completed"
    how = run.reason or "Your code loaded, and every hidden test could run to its end."
    checks.append(_check("Grading ran to the end", ran, how))
    return checks


def _check(name: str, passed: bool, output: str) -> dict[str, Any]:
    return {
        "name": name,
        "score": 0,
        "max_score": 0,
        "status": "passed" if passed else "failed",
        "output": output,
        "visibility": ALWAYS,
    }
