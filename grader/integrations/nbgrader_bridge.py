"""Grade an nbgrader submission with the grader's own pipeline, one grade cell per category.

The last lesson notebook ends with seven nbgrader autograder test cells, one per category,
`grade-envelope` to `grade-no-retry`. Nothing in a kernel decides their points: a kernel runs
the student's own cells, which could rewrite later cells, hide results or fake them. Their
hidden region only shows 0 points, so a cell never graded by the course's step earns nothing.

`TrustedCategoryScores` is an nbgrader autograde preprocessor (configured in
nbgrader_config.py, right after the kernel ran the notebook) that grades the student's folder as
submitted, exactly as `python -m grader grade` does (grader/pipeline.py: the assembly
mechanism reads the exercise cells, the hidden suite runs them in the sandbox worker), from
nbgrader's own process, and makes that verdict each category cell's only output. nbgrader takes
the number shown as the cell's partial credit, so the gradebook only ever records it. It reads
`submitted/`, never the folder the notebooks ran in: no kernel can write there
(grader/integrations/nbgrader_kernel.py confines them), so what is graded is what was handed in.

This module imports nbgrader; the grader itself never imports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from logging import Logger
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nbgrader.preprocessors import NbGraderPreprocessor

from grader.batch.run import RunSettings
from grader.intake.discover import Found
from grader.model import CATEGORIES, POINTS_PER_CATEGORY, SETTLED, Grade
from grader.pipeline import grade_submissions
from grader.reports.feedback import case_title
from grader.sandbox.cleanup import temporary_folder

if TYPE_CHECKING:
    from nbformat import NotebookNode
    from traitlets.config import Config

GRADE_ID_PREFIX = "grade-"


class HiddenSuiteDamaged(Exception):
    """The hidden suite has no test for a category, so a score would mean nothing."""


def submission_found(folder: Path, student: str) -> Found:
    """Name a student's folder for the grader's intake: the bridge's only use of discover.

    `folder` is nbgrader's submitted/<student>/<assignment>/: both of its last parts are read
    without following a link, from nbgrader's submitted/ folder, as `grade` reads that tree.
    """
    return Found(student=student, path=str(folder), kind="lessons", within=str(folder.parents[1]))


def grade_as_submitted(folder: Path, student: str, log: Logger | None = None) -> Grade:
    """Grade `student`'s lessons folder through the grader's pipeline; return their Grade.

    What the pipeline has to tell the instructor (a grader failure, a job that died) goes to
    `log`, nbgrader's own, as a warning.
    """
    kept = _KeptGrades(log)
    with temporary_folder("nbgrader-trusted-") as out:
        grade_submissions([submission_found(folder, student)], out, RunSettings(), kept)
    [grade] = kept.grades
    missing = [c.category for c in grade.categories if c.total == 0]
    if missing:
        # Fail closed: with no test a category would score 0 for everyone and mean nothing.
        raise HiddenSuiteDamaged(
            "The grader's hidden suite has no test for "
            + ", ".join(missing)
            + "; reinstall the grader before grading."
        )
    return grade


class _KeptGrades:
    """The pipeline's progress, keeping the Grade it gives (it returns only summaries)."""

    def __init__(self, log: Logger | None) -> None:
        self.grades: list[Grade] = []
        self.log = log

    def note(self, line: str) -> None:
        if self.log is not None:
            self.log.warning(line)

    def start(self, _total: int) -> None:
        pass

    def advance(self, grade: Grade) -> None:
        self.grades.append(grade)

    resume = advance


def student_folder(config: Config, resources: Mapping[str, Any], step: str) -> Path | None:
    """Return nbgrader's folder at `step` ("submitted", "autograded") of the notebook's student.

    None outside nbgrader's autograde, whose resources name the student and the assignment.
    """
    from nbgrader.coursedir import CourseDirectory

    names = resources.get("nbgrader")
    if not names or "student" not in names:
        return None
    course = CourseDirectory(config=config)
    directory = getattr(course, f"{step}_directory")
    return Path(course.format_path(directory, names["student"], names["assignment"]))


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


class TrustedCategoryScores(NbGraderPreprocessor):
    """Give each category grade cell the verdict graded as submitted, as its only output.

    A preprocessor for nbgrader's autograde step, right after the kernel ran the notebook:
    its resources name the student, the notebook and the gradebook. A category cell the
    student deleted is added back at the end, so deleting a cell can never skip its grading
    (nbgrader's own add_missing_cells cannot place cells that follow a read-only cell).
    """

    def preprocess(
        self, nb: NotebookNode, resources: dict[str, Any]
    ) -> tuple[NotebookNode, dict[str, Any]]:
        """Grade the submission once if this notebook has category cells; fill them in."""
        expected = _category_cells_in_source(resources["nbgrader"])
        present = {cell.metadata.nbgrader.grade_id for cell in nb.cells if category_of(cell)}
        nb.cells += [
            _restored_cell(grade_id, points)
            for grade_id, points in expected.items()
            if grade_id not in present
        ]
        cells = [(cell, category) for cell in nb.cells if (category := category_of(cell))]
        if not cells:
            return nb, resources
        folder = student_folder(self.config, resources, "submitted")
        if folder is None:
            raise RuntimeError("TrustedCategoryScores grades only in nbgrader's autograde")
        grade = grade_as_submitted(folder, resources["nbgrader"]["student"], self.log)
        for cell, category in cells:
            cell.outputs = _trusted_outputs(grade, cell, category)
        return nb, resources


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
