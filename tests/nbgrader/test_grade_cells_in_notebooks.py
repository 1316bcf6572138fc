"""The category grade cells: complete in the solution, empty in the lesson, worth 0 when run.

Only the course's autograde step gives them points (TrustedCategoryScores, which the workflow
tests show); a kernel that runs one anywhere else, as nbgrader would without that step, shows 0.
"""

import json
import logging
import shutil

import nbformat
import pytest
from classroom import ASSIGNMENT
from conftest import GRADED_NOTEBOOK, HIDDEN_REGION_TEXT
from nbclient import NotebookClient

from grader.batch.run import HiddenTest
from grader.integrations import nbgrader_bridge
from grader.integrations.nbgrader_bridge import HiddenSuiteDamaged, grade_id_for
from grader.model import CATEGORIES, POINTS_PER_CATEGORY, RunResult, Submission
from grader.paths import LESSONS, SOLUTIONS
from grader.score import score

pytestmark = [pytest.mark.kernel, pytest.mark.nbgrader, pytest.mark.bwrap, pytest.mark.slow]


def grade_cells(folder):
    """Return the category grade cells of the graded notebook in `folder`, by grade_id."""
    path = folder / ASSIGNMENT / f"{GRADED_NOTEBOOK}.ipynb"
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    wanted = {grade_id_for(category) for category in CATEGORIES}
    return {
        c["metadata"]["nbgrader"]["grade_id"]: c
        for c in cells
        if c["metadata"].get("nbgrader", {}).get("grade_id") in wanted
    }


def test_the_solution_has_one_locked_grade_cell_per_category_with_its_points():
    cells = grade_cells(SOLUTIONS)
    assert sorted(cells) == sorted(grade_id_for(c) for c in CATEGORIES)
    for grade_id, cell in cells.items():
        nbgrader = cell["metadata"]["nbgrader"]
        assert nbgrader["grade"] and nbgrader["locked"] and not nbgrader["solution"]
        assert nbgrader["points"] == POINTS_PER_CATEGORY
        assert "### BEGIN HIDDEN TESTS" in "".join(cell["source"]), grade_id


def test_the_lesson_grade_cells_keep_no_trace_of_the_hidden_region():
    cells = grade_cells(LESSONS)
    assert len(cells) == len(CATEGORIES)
    for grade_id, cell in cells.items():
        source = "".join(cell["source"])
        assert source.startswith("# "), grade_id
        for text in HIDDEN_REGION_TEXT:
            assert text not in source, grade_id


def test_run_in_any_kernel_a_grade_cell_shows_zero_points_and_no_stderr(tmp_path):
    work = tmp_path / ASSIGNMENT
    shutil.copytree(SOLUTIONS / ASSIGNMENT, work)
    notebook = nbformat.read(work / f"{GRADED_NOTEBOOK}.ipynb", as_version=4)
    client = NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(work)}}
    )
    client.execute()
    graded = [cell for cell in notebook.cells if nbgrader_bridge.category_of(cell)]
    assert len(graded) == len(CATEGORIES)
    for cell in graded:
        assert [o.output_type for o in cell.outputs] == ["execute_result"], cell.id
        assert cell.outputs[0].data["text/plain"] == "0.0"


def test_a_hidden_suite_missing_a_category_stops_grading_instead_of_scoring(tmp_path, monkeypatch):
    partial_suite = (HiddenTest("test_one", "envelope", "one test"),)
    submission = Submission("ada", str(tmp_path), "lessons", units=())

    def grade_with_partial_suite(pending, out_dir, settings, progress):
        progress.advance(score(RunResult(submission, (), "completed"), partial_suite))

    monkeypatch.setattr(nbgrader_bridge, "grade_submissions", grade_with_partial_suite)
    with pytest.raises(HiddenSuiteDamaged, match="error_codes"):
        nbgrader_bridge.grade_as_submitted(tmp_path, "ada")


def test_what_the_pipeline_tells_the_instructor_reaches_nbgraders_log(
    tmp_path, monkeypatch, caplog
):
    full_suite = tuple(HiddenTest(f"test_{c}", c, "one test") for c in CATEGORIES)
    submission = Submission("ada", str(tmp_path), "lessons", units=())

    def grade_with_a_note(pending, out_dir, settings, progress):
        progress.note("The grader failed on 'ada'; their status is error.")
        progress.advance(score(RunResult(submission, (), "error"), full_suite))

    monkeypatch.setattr(nbgrader_bridge, "grade_submissions", grade_with_a_note)
    log = logging.getLogger("nbgrader-autograde")
    with caplog.at_level(logging.WARNING, logger=log.name):
        nbgrader_bridge.grade_as_submitted(tmp_path, "ada", log)
    said = [r.getMessage() for r in caplog.records if r.name == log.name]
    assert said == ["The grader failed on 'ada'; their status is error."]
