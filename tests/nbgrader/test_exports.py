"""The course's nbgrader exports: two decimals, real CSV, every rostered student, late rules.

A gradebook is built directly with nbgrader's API (no kernel runs): one assignment whose seven
grade cells hold cent scores that add up in floating point to 34.040000000000006; ada, who
submitted late with a penalty and whose last name holds a comma, and bob, who sent nothing.
"""

import csv
import io
import os

import pytest
from conftest import VENV_BIN
from nbgrader.api import Gradebook
from traitlets.config import Config

from grader.integrations.nbgrader_plugins import (
    CanvasExport,
    MoodleExport,
    PerHourPenalty,
    RoundedCsvExport,
)

# nbgrader's add_submission draws the SQLAlchemy warning nbgrader_config.py silences.
pytestmark = [
    pytest.mark.kernel,
    pytest.mark.nbgrader,
    pytest.mark.bwrap,
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:Object of type <Submitted"),
]
ASSIGNMENT = "bounded_results"
CELL_SCORES = (1.2, 5.07, 7.79, 4.6, 4.83, 6.67, 3.88)  # float sum 34.040000000000006


@pytest.fixture
def gradebook(tmp_path, monkeypatch):
    # A new gradebook is made by running `alembic`, which nbgrader finds on PATH.
    monkeypatch.setenv("PATH", f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as book:
        book.add_assignment(ASSIGNMENT)
        book.add_notebook("07-invoke-tool", ASSIGNMENT)
        for index in range(len(CELL_SCORES)):
            book.add_grade_cell(
                f"grade-{index}", "07-invoke-tool", ASSIGNMENT, max_score=10.0, cell_type="code"
            )
        book.add_student("ada", first_name="Ada", last_name="Lovelace, Countess")
        book.add_student("bob")
        submission = book.add_submission(ASSIGNMENT, "ada")
        for index, points in enumerate(CELL_SCORES):
            grade = book.find_grade(f"grade-{index}", "07-invoke-tool", ASSIGNMENT, "ada")
            grade.auto_score = points
        [notebook] = submission.notebooks
        notebook.late_submission_penalty = 2.0
        book.db.commit()
        yield book


def export(plugin_class, gradebook, tmp_path, **settings):
    config = Config({plugin_class.__name__: settings})
    destination = tmp_path / "out.csv"
    plugin_class(config=config, to=str(destination)).export(gradebook)
    return list(csv.DictReader(io.StringIO(destination.read_text(encoding="utf-8"))))


def test_nbgraders_csv_has_two_decimals_and_quotes_a_comma(gradebook, tmp_path):
    rows = {row["student_id"]: row for row in export(RoundedCsvExport, gradebook, tmp_path)}
    ada = rows["ada"]
    assert ada["raw_score"] == "34.04" and ada["late_submission_penalty"] == "2.00"
    assert ada["score"] == "32.04" and ada["max_score"] == "70.00"
    assert ada["last_name"] == "Lovelace, Countess"
    assert rows["bob"]["score"] == "0.00" and rows["bob"]["timestamp"] == ""


def test_the_lms_exports_hold_the_score_that_counts_for_every_student(gradebook, tmp_path):
    canvas = export(CanvasExport, gradebook, tmp_path)
    assert [(row["SIS Login ID"], row[ASSIGNMENT]) for row in canvas[1:]] == [
        ("ada", "32.04"),
        ("bob", "0.00"),
    ]
    moodle = export(MoodleExport, gradebook, tmp_path, comments=True)
    assert moodle[1] == {
        "Username": "bob",
        ASSIGNMENT: "0.00",
        "Feedback": "No submission was received.",
    }


def test_per_hour_penalty_counts_started_hours_and_never_exceeds_the_notebooks_score():
    plugin = PerHourPenalty(config=Config({"PerHourPenalty": {"points_per_hour": 2.0}}))
    assert plugin.late_submission_penalty("ada", 50.0, 1) == 2.0
    assert plugin.late_submission_penalty("ada", 50.0, 3600) == 2.0
    assert plugin.late_submission_penalty("ada", 50.0, 3601) == 4.0
    assert plugin.late_submission_penalty("ada", 0.0, 7200) == 0.0  # a notebook worth nothing
