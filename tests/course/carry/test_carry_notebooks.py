"""A saved notebook is read as the JSON it is; a file that is not one is a sentence, not a crash."""

from pathlib import Path

import pytest
from builders import course_cell, exercise_cell, load_lesson, write_lesson

from course.carry import notebooks
from course.carry.notebooks import AssemblyError, cell_id_of, is_own_cell

pytestmark = []


def test_a_malformed_notebook_is_a_problem_not_a_crash(tmp_path):
    write_lesson(tmp_path)
    (tmp_path / "05-ownership.ipynb").write_text("{not json", encoding="utf-8")
    _, problems = load_lesson(tmp_path)
    assert len(problems) == 1
    assert "05-ownership.ipynb could not be read as a notebook" in problems[0]


def test_assembly_errors_render_as_one_plain_line_in_ipython():
    error = AssemblyError("Step 1 is missing.")
    assert error._render_traceback_() == ["⚠ Step 1 is missing."]


@pytest.mark.parametrize("metadata", [[], "nbgrader", {"nbgrader": ["grade_id"]}])
def test_a_cell_whose_metadata_was_damaged_by_hand_is_the_students_own_not_a_crash(metadata):
    cell = {"cell_type": "code", "id": "mine", "metadata": metadata, "source": "x = 1\n"}
    assert cell_id_of(cell) == "mine"
    assert is_own_cell(cell)


def test_only_the_exercise_cells_among_the_courses_cells_are_the_students():
    assert cell_id_of(exercise_cell("make-envelope", "")) == "make-envelope"
    assert is_own_cell(exercise_cell("make-envelope", ""))
    assert not is_own_cell(course_cell("make-envelope-check", ""))
    markdown = {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": "# Hi"}
    assert not is_own_cell(markdown)


def test_a_notebook_that_reads_as_missing_for_a_moment_is_read_again(tmp_path, monkeypatch):
    write_lesson(tmp_path)
    real_read = Path.read_bytes
    failures = []

    def missing_once(path):
        if path.name == "02-failure-codes.ipynb" and not failures:
            failures.append(path)
            raise FileNotFoundError(path)
        return real_read(path)

    monkeypatch.setattr(Path, "read_bytes", missing_once)
    monkeypatch.setattr(notebooks, "READ_PAUSE_SECONDS", 0.0)
    _, problems = load_lesson(tmp_path)
    assert failures and not problems


def test_a_notebook_that_stays_missing_is_said_to_be_unreadable(tmp_path, monkeypatch):
    monkeypatch.setattr(notebooks, "READ_PAUSE_SECONDS", 0.0)
    with pytest.raises(AssemblyError, match="could not be read as a notebook"):
        notebooks.read_notebook_cells(tmp_path / "gone.ipynb")
