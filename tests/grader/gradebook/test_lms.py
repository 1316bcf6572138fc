"""Grades export for Canvas and Moodle follows the column mapping docs/grading.md documents."""

import csv
import io
import shutil
from dataclasses import replace

import pytest
from grade_builders import CLASS, missing_grade
from grader_cli import run_grader

from grader.gradebook import lms
from grader.paths import PROJECT_ROOT
from grader.reports.summary import summarize

pytestmark = []

PROJECT = PROJECT_ROOT
GRADING_DOC = PROJECT / "docs" / "grading.md"
REFERENCE = PROJECT / "fixtures" / "submissions" / "correct" / "reference.py"

LINUS = replace(CLASS[2], score=38.3)
ADA = replace(CLASS[0], score=70.0)
LATE = replace(CLASS[1], score=56.83, late_penalty=3.0, seconds_late=3 * 3600)


def rows(text):
    return list(csv.reader(io.StringIO(text)))


def lms_rows(*summaries):
    return lms.rows_from_summaries(summaries)


def test_canvas_export_puts_the_student_id_in_student_and_sis_login_id():
    table = rows(lms.canvas_csv(lms_rows(LINUS, ADA), "bounded_results", 70.0))
    assert table[0] == [
        "Student",
        "ID",
        "SIS User ID",
        "SIS Login ID",
        "Section",
        "bounded_results",
    ]
    assert table[1] == ["    Points Possible", "", "", "", "", "70.00"]
    assert table[2:] == [
        ["ada", "", "", "ada", "", "70.00"],
        ["linus", "", "", "linus", "", "38.30"],
    ]


def test_moodle_export_puts_the_student_id_in_username_then_the_score():
    table = rows(lms.moodle_csv(lms_rows(LINUS, ADA), "bounded_results"))
    assert table == [["Username", "bounded_results"], ["ada", "70.00"], ["linus", "38.30"]]


def test_the_score_that_counts_is_after_the_late_penalty_in_two_decimals():
    [row] = lms_rows(LATE)
    assert row.score == 53.83
    assert rows(lms.moodle_csv([row], "bounded_results"))[1] == ["grace", "53.83"]


def test_a_rostered_student_with_nothing_scores_zero_with_a_comment_saying_so():
    [row] = lms_rows(summarize(missing_grade("bob")))
    table = rows(lms.moodle_csv([row], "bounded_results", comments=True))
    assert table == [
        ["Username", "bounded_results", "Feedback"],
        ["bob", "0.00", "No submission was received."],
    ]


def test_the_moodle_comment_is_one_line_with_the_score_what_lost_points_and_lateness():
    [row] = lms_rows(LATE)
    assert "\n" not in row.comment
    assert row.comment.startswith("56.83/70.00.")
    assert "envelope 5.00/10" in row.comment and "ownership 0.00/10" in row.comment
    assert "Late by 3.0 h: 3.00 off, 53.83 counted." in row.comment


def test_canvas_never_gets_a_comment_column_it_would_import_as_an_assignment():
    text = lms.lms_csv(lms_rows(LATE), "canvas", "bounded_results", max_score=70, comments=True)
    assert len(rows(text)[0]) == len(lms.CANVAS_STUDENT_COLUMNS) + 1


def test_the_export_file_is_named_after_the_system_and_the_column_after_the_assignment(tmp_path):
    path = lms.write_lms_grades([LINUS, ADA], tmp_path, "moodle")
    assert path == tmp_path / "grades-moodle.csv"
    assert path.read_text(encoding="utf-8").splitlines()[0] == "Username,bounded_results"
    assert path.stat().st_mode & 0o007 == 0  # never readable by every user of the machine


def test_the_grading_doc_documents_both_mappings():
    text = GRADING_DOC.read_text(encoding="utf-8")
    assert "`grades-canvas.csv`" in text and "`grades-moodle.csv`" in text
    assert "SIS Login ID" in text and "Username" in text and "Feedback" in text


@pytest.mark.bwrap
def test_grade_with_lms_moodle_writes_the_export_beside_grades_csv(tmp_path):
    shutil.copy(REFERENCE, tmp_path / "ada.py")
    (tmp_path / "bin.py").write_bytes(b"\x00binary")
    out = tmp_path / "out"
    completed = run_grader(
        "grade", tmp_path / "ada.py", tmp_path / "bin.py", "--out", out, "--lms", "moodle"
    )
    assert completed.returncode == 0, completed.stderr
    with (out / "grades.csv").open(encoding="utf-8", newline="") as stream:
        expected = [[row["student"], row["score"]] for row in csv.DictReader(stream)]
    table = rows((out / "grades-moodle.csv").read_text(encoding="utf-8"))
    assert table == [["Username", "bounded_results"], *expected]
    assert not (out / "grades-canvas.csv").exists()


@pytest.mark.bwrap
def test_an_unknown_lms_is_a_one_line_usage_error(tmp_path):
    completed = run_grader("grade", REFERENCE, "--out", tmp_path / "out", "--lms", "blackboard")
    assert completed.returncode == 2
    assert len(completed.stderr.strip().splitlines()) == 1
    assert "blackboard" in completed.stderr
