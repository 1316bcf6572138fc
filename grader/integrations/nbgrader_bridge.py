"""Grade an nbgrader submission with the grader's own pipeline, one grade cell per category.

The last lesson notebook ends with seven nbgrader autograder test cells, one per category,
`grade-envelope` to `grade-no-retry`. Their hidden region calls `category_score("<category>")`,
which grades the folder the kernel runs in (nbgrader's `autograded/<student>/<assignment>/`)
exactly as `python -m grader grade` does: the assembly mechanism reads the exercise cells, the
hidden suite runs them in the sandbox worker, and the category's points are the cell's result.
nbgrader takes a number shown as a grade cell's result as its partial credit.

A kernel also runs the student's own cells, so nothing it shows can be trusted: a student's
cell could rewrite later cells, hide results or fake them. `trusted_category_scores` is an
nbgrader autograde preprocessor (configured in nbgrader_config.py, right after `Execute`)
that grades the same folder again from nbgrader's own process and replaces every category
cell's outputs with that verdict, so the gradebook only ever records the trusted one.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from course.manifest import load_course
from grader import run
from grader.intake.discover import Found
from grader.intake.load import load
from grader.model import CATEGORIES, POINTS_PER_CATEGORY, SETTLED, Grade, RunResult, Submission
from grader.reports.feedback import case_title
from grader.score import score

if TYPE_CHECKING:  # nbformat is there when nbgrader runs, the only time it is needed
    from nbformat import NotebookNode

GRADE_ID_PREFIX = "grade-"


class HiddenSuiteDamaged(Exception):
    """The hidden suite has no test for a category, so a score would mean nothing."""


def grade_folder(folder: str | Path) -> Grade:
    """Grade the lesson notebooks in `folder` and return the Grade, as `python -m grader` would."""
    folder = Path(folder).resolve()
    found = Found(student=folder.parent.name, path=str(folder), kind="lessons")
    return _grade_submission(load(found, load_course()))


# Keyed by the submission itself (its exercise cells' sources), so the seven cells of one
# notebook share one run while an edited notebook is graded afresh. The cache lives only in the
# memory of the process that graded, never in a file a student's code could write.
@functools.lru_cache(maxsize=2)
def _grade_submission(submission: Submission) -> Grade:
    hidden_tests = run.hidden_tests()
    covered = {test.category for test in hidden_tests}
    missing = [category for category in CATEGORIES if category not in covered]
    if missing:
        # Fail closed: with no test a category would score 0 for everyone and mean nothing.
        raise HiddenSuiteDamaged(
            "The grader's hidden suite has no test for "
            + ", ".join(missing)
            + "; reinstall the grader before grading."
        )
    if submission.error is not None:
        result = RunResult(submission, (), "unreadable", reason=submission.error)
    else:
        [result] = run.run_submissions([submission], run.RunSettings())
    return score(result, hidden_tests)


def grade_id_for(category: str) -> str:
    """Return the grade_id of a category's grade cell: cell ids use dashes, not underscores."""
    return GRADE_ID_PREFIX + category.replace("_", "-")


def category_of(cell: Mapping[str, Any]) -> str | None:
    """Return the category a grade cell scores, or None for any other cell."""
    nbgrader = cell.get("metadata", {}).get("nbgrader", {})
    if not nbgrader.get("grade"):
        return None
    grade_id = nbgrader.get("grade_id")
    return next((c for c in CATEGORIES if grade_id_for(c) == grade_id), None)


def category_report(grade: Grade, category: str) -> tuple[str, float]:
    """Return (summary text for the student, points earned) for one category of a Grade."""
    [result] = [c for c in grade.categories if c.category == category]
    lines = [
        f"{category}: {result.passed} of {result.judged} hidden tests passed, "
        f"{result.points:g} of {result.max_points:g} points."
    ]
    if grade.run.reason:
        lines.append(grade.run.reason)
    missed = (
        case_title(outcome)
        for outcome in grade.run.outcomes
        if outcome.category == category and outcome.status not in SETTLED
    )
    lines += [f"Not yet: {description}" for description in dict.fromkeys(missed)]
    return "\n".join(lines) + "\n", result.points


def category_score(category: str, folder: str | Path = ".") -> float:
    """Print how the submission in `folder` did in `category`; return its points for nbgrader."""
    if category not in CATEGORIES:
        raise ValueError(f"{category!r} is not a grading category")
    text, points = category_report(grade_folder(folder), category)
    print(text, end="")
    return points


def trusted_category_scores(
    notebook: NotebookNode, resources: dict[str, Any]
) -> tuple[NotebookNode, dict[str, Any]]:
    """Give each category grade cell the verdict graded outside the kernel, as its only output.

    An nbconvert preprocessor (a plain callable) for nbgrader's autograde step: it gets the
    executed notebook, and its resources name the notebook, the gradebook and, as metadata
    path, the folder being autograded. A category cell the student deleted is added back at
    the end, so deleting a cell can never skip its grading (nbgrader's own add_missing_cells
    cannot place cells that follow a read-only cell).
    """
    expected = _category_cells_in_source(resources["nbgrader"])
    present = {cell.metadata.nbgrader.grade_id for cell in notebook.cells if category_of(cell)}
    notebook.cells += [
        _restored_cell(grade_id, points)
        for grade_id, points in expected.items()
        if grade_id not in present
    ]
    cells = [(cell, category) for cell in notebook.cells if (category := category_of(cell))]
    if not cells:
        return notebook, resources
    grade = grade_folder(resources["metadata"]["path"])
    for cell, category in cells:
        cell.outputs = _trusted_outputs(grade, cell, category)
    return notebook, resources


def _category_cells_in_source(nbgrader: dict[str, Any]) -> dict[str, float]:
    """Return {grade_id: points} of the category grade cells of the instructor's notebook."""
    from nbgrader.api import Gradebook

    with Gradebook(nbgrader["db_url"]) as gradebook:
        source = gradebook.find_notebook(nbgrader["notebook"], nbgrader["assignment"])
        cells = [(cell.name, cell.max_score) for cell in source.grade_cells]
    return {name: points for name, points in cells if category_of(_stub(name))}


def _stub(grade_id: str) -> dict[str, Any]:
    return {"metadata": {"nbgrader": {"grade": True, "grade_id": grade_id}}}


def _restored_cell(grade_id: str, points: float) -> NotebookNode:
    from nbformat.v4 import new_code_cell

    source = "# This grade cell was missing from your notebook; grading added it back."
    metadata = {
        "grade": True,
        "grade_id": grade_id,
        "locked": True,
        "points": points,
        "schema_version": 3,
        "solution": False,
        "task": False,
    }
    cell: NotebookNode = new_code_cell(source, metadata={"nbgrader": metadata})
    return cell


def _trusted_outputs(grade: Grade, cell: NotebookNode, category: str) -> list[NotebookNode]:
    """Return a category cell's outputs: the report, then its points on the cell's own scale."""
    from nbformat.v4 import new_output

    text, points = category_report(grade, category)
    scaled = round(points / POINTS_PER_CATEGORY * float(cell.metadata.nbgrader.points), 2)
    return [
        new_output("stream", name="stdout", text=text),
        new_output(
            "execute_result",
            data={"text/plain": repr(scaled)},
            execution_count=cell.get("execution_count"),
        ),
    ]
