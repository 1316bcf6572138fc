"""`grade --extensions`: each student's lateness from their own due time, in every file it writes.

The class of tests/extended_class.py hands in the sample class's ada four times, in an nbgrader
submitted/ tree whose collect receipts give the times; graded once with a per-hour penalty, the
Moodle file and comments. A bad extensions file stops the command before anything is graded.
"""

import csv
import io

import pytest
from extended_class import (
    DUE,
    EXTENDED_DUE,
    HOURS_CHARGED,
    PENALTY,
    PENALTY_PER_HOUR,
    hand_in,
    write_extensions,
)
from grader_cli import read_grades, run_grader

from grader.paths import PROJECT_ROOT

pytestmark = [pytest.mark.bwrap]

WORK = PROJECT_ROOT / "fixtures" / "sample-class" / "submitted" / "ada" / "bounded_results"
POLICY = ("--due", DUE, "--late-policy", f"per-hour:{PENALTY_PER_HOUR:g}")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class graded once with its extensions; returns the run's root and finished process."""
    root = tmp_path_factory.mktemp("extensions")
    hand_in(root / "submitted", WORK)
    extensions = write_extensions(root / "extensions.csv")
    done = run_grader(
        *("grade", root / "submitted", "--out", root / "out", *POLICY),
        *("--extensions", extensions, "--lms", "moodle", "--comments"),
    )
    assert done.returncode == 0, done.stderr
    return root, done


def test_grades_csv_counts_lateness_from_each_students_own_due_time(graded):
    root, _done = graded
    rows = read_grades(root / "out")
    assert sorted(rows) == sorted(HOURS_CHARGED)
    for student, row in rows.items():
        assert float(row["late_penalty"]) == PENALTY[student], student
        assert float(row["final_score"]) == round(float(row["score"]) - PENALTY[student], 2)
        assert row["extended_due"] == EXTENDED_DUE[student], student
    assert float(rows["on-time"]["score"]) > max(PENALTY.values())  # penalties bite
    assert rows["extended"]["hours_late"] == "0.00"
    assert rows["extended-late"]["hours_late"] == "1.52"


def test_the_summary_and_feedback_say_who_had_an_extension(graded):
    root, done = graded
    assert "Extensions: 2 students" in done.stdout and ": extended, extended-late." in done.stdout
    assert "2 submissions late" in done.stdout  # late and extended-late; extended is on time
    extended = (root / "out" / "extended" / "feedback.md").read_text(encoding="utf-8")
    assert "You had an extension: your work was due 2026-03-02 11:59+00:00" in extended
    page = (root / "out" / "extended-late" / "feedback.html").read_text(encoding="utf-8")
    assert "You had an extension: your work was due 2026-03-02 23:59+00:00" in page
    on_time = (root / "out" / "late" / "feedback.md").read_text(encoding="utf-8")
    assert "extension" not in on_time


def test_the_lms_file_holds_the_final_score_and_names_the_extension(graded):
    root, _done = graded
    grades = read_grades(root / "out")
    text = (root / "out" / "grades-moodle.csv").read_text(encoding="utf-8")
    moodle = {row["Username"]: row for row in csv.DictReader(io.StringIO(text))}
    for student, row in moodle.items():
        assert row["bounded_results"] == grades[student]["final_score"], student
        named = "Extension: due " + EXTENDED_DUE[student] in row["Feedback"]
        assert named == bool(EXTENDED_DUE[student]), student
    assert "Late by 91 min: 4.00 off" in moodle["extended-late"]["Feedback"]


@pytest.mark.parametrize(
    ("extensions", "roster", "message"),
    [
        ("student_id,extra_hours\nextended,2\nextnded,3\n", None, "line 3: 'extnded' is neither"),
        ("student_id,due\nextended,soon\n", None, "line 2: 'soon' is not a date and time"),
        ("student_id,extra_hours\nextended,-1\n", None, "line 2: extra_hours -1 is negative"),
        ("student_id,due\nlate,2026-03-01T12:00Z\n", None, "cannot be negative"),
        (
            "student_id,extra_hours\nlate,1\n",
            "id,extra_hours\non-time,\nlate,2\n",
            "'late' already has an extension in --roster",
        ),
    ],
)
def test_a_bad_extension_is_one_line_and_exit_2_before_anything_is_graded(
    tmp_path, extensions, roster, message
):
    hand_in(tmp_path / "submitted", WORK)
    (tmp_path / "extensions.csv").write_text(extensions, encoding="utf-8")
    options = ["--extensions", tmp_path / "extensions.csv"]
    if roster is not None:
        (tmp_path / "students.csv").write_text(roster, encoding="utf-8")
        options += ["--roster", tmp_path / "students.csv"]
    done = run_grader("grade", tmp_path / "submitted", "--out", tmp_path / "out", *POLICY, *options)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("grader: error: --") and message in lines[0]
    assert not (tmp_path / "out").exists()
