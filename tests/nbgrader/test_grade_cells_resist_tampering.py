"""A student's code in the nbgrader kernel cannot change a grade, nor disarm grading.

Eve's submission forges the grade cells from inside the kernel (an input transformer, a fake
bridge module in sys.modules, a name `category_score`, stderr after every cell), ships a
shadow `grader` package in her folder and deletes three grade cells; she has a real bug in
unicode_boundary. She must get exactly her honest score, and grace, graded after her, too.
"""

import json

import pytest
from classroom import ASSIGNMENT
from conftest import GRADED_NOTEBOOK, gradebook_category_scores

from grader.integrations.nbgrader_bridge import grade_id_for
from grader.model import CATEGORIES

pytestmark = [pytest.mark.kernel, pytest.mark.nbgrader, pytest.mark.bwrap, pytest.mark.slow]


def autograded_cells(root, student):
    """Return the cells of a student's autograded notebook that have a grade_id, by id."""
    path = root / "autograded" / student / ASSIGNMENT / f"{GRADED_NOTEBOOK}.ipynb"
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return {c["metadata"]["nbgrader"]["grade_id"]: c for c in cells if "nbgrader" in c["metadata"]}


def stderr_text(cell):
    """Return what a cell wrote to stderr."""
    streams = [o for o in cell.get("outputs", []) if o["output_type"] == "stream"]
    return "".join("".join(o["text"]) for o in streams if o["name"] == "stderr")


def test_the_forgery_really_ran_in_the_kernel(graded_course):
    cells = autograded_cells(graded_course.root, "eve")
    assert "forged" in stderr_text(cells["invoke-tool-check"])


def test_forging_in_the_kernel_leaves_the_honest_score(graded_course):
    honest = graded_course.grader_rows()["eve"]
    scores = gradebook_category_scores(graded_course.root, "eve")
    assert float(honest["unicode_boundary"]) < 10.0
    assert {c: round(s, 2) for c, s in scores.items()} == {c: float(honest[c]) for c in CATEGORIES}


def test_grade_cells_hold_only_the_trusted_report_without_stderr(graded_course):
    cells = autograded_cells(graded_course.root, "eve")
    for category in CATEGORIES:
        outputs = cells[grade_id_for(category)]["outputs"]
        kinds = [(o["output_type"], o.get("name")) for o in outputs]
        assert kinds == [("stream", "stdout"), ("execute_result", None)], category
        assert "".join(outputs[0]["text"]).startswith(f"{category}: ")


def test_deleted_grade_cells_are_added_back_and_graded(graded_course):
    cells = autograded_cells(graded_course.root, "eve")
    for grade_id in ("grade-envelope", "grade-redaction", "grade-no-retry"):
        assert grade_id in cells
        assert "missing from your notebook" in "".join(cells[grade_id]["source"])
    scores = gradebook_category_scores(graded_course.root, "eve")
    assert scores["envelope"] == 10.0


def test_files_added_to_one_folder_do_not_disarm_grading_for_a_later_student(graded_course):
    shadow = graded_course.root / "autograded" / "eve" / ASSIGNMENT / "grader" / "integrations"
    assert (shadow / "nbgrader_bridge.py").is_file(), "the shadow package reached the kernel"
    honest = graded_course.grader_rows()["grace"]
    scores = gradebook_category_scores(graded_course.root, "grace")
    assert scores["unicode_boundary"] < 10.0
    assert {c: round(s, 2) for c, s in scores.items()} == {c: float(honest[c]) for c in CATEGORIES}


def test_no_hidden_test_file_is_released_to_students_or_graded_from_their_folder(graded_course):
    released = graded_course.root / "lessons" / ASSIGNMENT
    autograded = graded_course.root / "autograded" / "grace" / ASSIGNMENT
    for folder in (released, autograded):
        names = {p.name for p in folder.rglob("*") if p.is_file()}
        assert names and not any(name.startswith("test_") for name in names), folder
