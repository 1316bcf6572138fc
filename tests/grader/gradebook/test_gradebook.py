"""`grade --roster --due --late-policy --comments`: every rostered student a row, lateness counted.

A small nbgrader `submitted/` tree is graded as an instructor would: ada on time, linus 2.5 hours
late (collect's receipt, timestamp.txt in submitted/, says so), zoe not on the roster and with no
trusted time, bob on the roster with nothing.
"""

import csv
import io
import os
import shutil

import pytest
from grader_cli import run_grader

from grader.paths import PROJECT_ROOT

pytestmark = [pytest.mark.bwrap]

PROJECT = PROJECT_ROOT
SAMPLE = PROJECT / "fixtures" / "sample-class" / "submitted"
DUE = "2026-03-01 23:59 UTC"
TIMESTAMPS = {"ada": "2026-03-01 23:00:00.000000 UTC", "linus": "2026-03-02 02:29:00.000000 UTC"}


def grader(*args, umask=0o022):
    """Run `python -m grader` with `args` under `umask`, as an instructor's shell would."""
    previous = os.umask(umask)
    try:
        return run_grader(*args)
    finally:
        os.umask(previous)


def read_rows(path):
    with path.open(encoding="utf-8", newline="") as stream:
        return {row[next(iter(row))]: row for row in csv.DictReader(stream)}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The submitted/ tree, the roster, and one graded run with every gradebook option."""
    root = tmp_path_factory.mktemp("gradebook")
    for student, source in (("ada", "ada"), ("linus", "linus"), ("zoe", "alan")):
        folder = root / "submitted" / student
        shutil.copytree(SAMPLE / source, folder)
        if student in TIMESTAMPS:
            stamp = folder / "bounded_results" / "timestamp.txt"
            stamp.write_text(TIMESTAMPS[student], encoding="utf-8")
    (root / "students.csv").write_text("id,first_name\nada,Ada\nbob,Bob\nlinus,Linus\n")
    options = ["--roster", root / "students.csv", "--due", DUE, "--late-policy", "per-hour:1"]
    command = ["grade", root / "submitted", "--out", root / "out", *options]
    done = grader(*command, "--lms", "canvas", "--comments")
    assert done.returncode == 0, done.stderr
    return root, done, command


def test_every_rostered_student_gets_a_row_and_one_with_nothing_scores_zero(course):
    root, _done, _command = course
    rows = read_rows(root / "out" / "grades.csv")
    assert sorted(rows) == ["ada", "bob", "linus", "zoe"]
    assert rows["bob"]["status"] == "missing" and rows["bob"]["score"] == "0.00"
    assert rows["bob"]["comment"] == "No submission was received."
    assert not (root / "out" / "bob").exists()  # no feedback page for a submission never made


def test_lateness_comes_from_nbgraders_timestamp_and_costs_a_point_per_started_hour(course):
    root, _done, _command = course
    rows = read_rows(root / "out" / "grades.csv")
    ada, linus = rows["ada"], rows["linus"]
    assert ada["late_penalty"] == "0.00" and ada["final_score"] == ada["score"]
    assert ada["submitted"] == "2026-03-01T23:00:00+00:00"
    assert linus["hours_late"] == "2.50" and linus["late_penalty"] == "3.00"
    assert float(linus["final_score"]) == round(float(linus["score"]) - 3, 2)
    assert "Late by 2.5 h: 3.00 off" in linus["comment"]


def test_the_lms_file_holds_the_score_that_counts_for_everyone(course):
    root, _done, _command = course
    grades = read_rows(root / "out" / "grades.csv")
    canvas = list(csv.reader(io.StringIO((root / "out" / "grades-canvas.csv").read_text())))
    scores = {row[0]: row[5] for row in canvas[2:]}
    assert scores == {student: row["final_score"] for student, row in grades.items()}
    assert scores["bob"] == "0.00"


def test_the_summary_names_the_absent_and_the_unexpected(course):
    _root, done, _command = course
    assert "Roster: 3 students, 1 student with no submission (status missing, 0 points): bob." in (
        done.stdout
    )
    assert "Not on the roster, graded anyway: zoe." in done.stdout
    assert "Late policy: due 2026-03-01 23:59+00:00; 1 point off for every hour" in done.stdout
    assert "1 submission late" in done.stdout  # zoe has no trusted time: never late
    assert "No trusted time, lateness not applied" in done.stdout
    assert done.stdout.rstrip().count(": zoe.") == 2  # not on the roster; no trusted time


def test_a_penalty_with_no_trusted_time_for_anyone_is_one_line_before_grading(tmp_path):
    """Old file times and a student's own timestamp.txt are no time: zero would apply to no one."""
    folder = tmp_path / "class" / "ada"
    shutil.copytree(SAMPLE / "ada" / "bounded_results", folder)
    (folder / "timestamp.txt").write_text("2020-01-01 00:00:00 UTC", encoding="utf-8")
    for path in folder.iterdir():
        os.utime(path, (0, 0))
    done = grader(
        "grade",
        tmp_path / "class",
        "--out",
        tmp_path / "out",
        "--due",
        DUE,
        "--late-policy",
        "zero",
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "no submission has a trusted hand-in time" in lines[0]
    assert not (tmp_path / "out").exists()


def test_the_class_files_include_the_absent_student_and_no_file_is_world_readable(course):
    root, _done, _command = course
    out = root / "out"
    assert "data-student='bob'" in (out / "report.html").read_text(encoding="utf-8")
    assert "\nbob,missing,0.00," in (out / "item-analysis.csv").read_text(encoding="utf-8")
    for path in [out, *out.rglob("*")]:
        assert path.stat().st_mode & 0o007 == 0, path


def test_grading_again_reuses_every_result_and_writes_the_same_grades(course, tmp_path):
    root, _done, command = course
    before = (root / "out" / "grades.csv").read_bytes()
    again = grader(*command, "--lms", "canvas", "--comments")
    assert again.returncode == 0, again.stderr
    assert "reused 3 results" in again.stdout
    assert (root / "out" / "grades.csv").read_bytes() == before


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--roster", "nowhere.csv"], "--roster nowhere.csv cannot be read"),
        (["--due", "soon"], "--due 'soon' is not a date"),
        (["--late-policy", "zero"], "--late-policy needs --due"),
        (["--submitted-at", "times.csv"], "--submitted-at needs --due"),
        (["--due", DUE, "--submitted-at", "nowhere.csv"], "--submitted-at nowhere.csv cannot"),
    ],
)
def test_a_bad_gradebook_option_is_one_line_before_anything_is_graded(
    course, tmp_path, options, message
):
    root, _done, _command = course
    done = grader("grade", root / "submitted", "--out", tmp_path / "out", *options)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("grader: error: ") and message in lines[0]
    assert not (tmp_path / "out").exists()
