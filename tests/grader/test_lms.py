"""Grades export for Canvas and Moodle follows the column mapping README.md documents."""

import csv
import io
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from grader import lms
from grader.model import RunResult, Submission
from grader.score import score

PROJECT = Path(__file__).resolve().parents[2]
README = PROJECT / "README.md"
REFERENCE = PROJECT / "fixtures" / "submissions" / "correct" / "reference.py"


def grade_for(student, run_status="completed"):
    submission = Submission(student=student, path=f"{student}.py", kind="python", units=())
    return score(RunResult(submission, (), run_status), hidden_tests=None)


def with_points(grade, points):
    return replace(grade, score=points)


CLASS = [with_points(grade_for("linus"), 38.3), with_points(grade_for("ada"), 70.0)]


def rows(text):
    return list(csv.reader(io.StringIO(text)))


def test_canvas_export_puts_the_student_id_in_student_and_sis_login_id():
    table = rows(lms.canvas_csv(CLASS, "bounded_results"))
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
    table = rows(lms.moodle_csv(CLASS, "bounded_results"))
    assert table == [["Username", "bounded_results"], ["ada", "70.00"], ["linus", "38.30"]]


def test_the_export_file_is_named_after_the_system_and_the_column_after_the_assignment(tmp_path):
    path = lms.write_lms_grades(CLASS, tmp_path, "moodle")
    assert path == tmp_path / "grades-moodle.csv"
    assert path.read_text(encoding="utf-8").splitlines()[0] == "Username,bounded_results"


def test_the_readme_documents_both_mappings():
    text = README.read_text(encoding="utf-8")
    assert "`grades-canvas.csv`" in text and "`grades-moodle.csv`" in text
    assert "SIS Login ID" in text and "Username" in text


def run_grader(*args):
    return subprocess.run(
        [sys.executable, "-m", "grader", *map(str, args)],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


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


def test_an_unknown_lms_is_a_one_line_usage_error(tmp_path):
    completed = run_grader("grade", REFERENCE, "--out", tmp_path / "out", "--lms", "blackboard")
    assert completed.returncode == 2
    assert len(completed.stderr.strip().splitlines()) == 1
    assert "blackboard" in completed.stderr
