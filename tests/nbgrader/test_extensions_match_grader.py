"""Extensions through nbgrader: the course's PerHourPenalty reads `grade --extensions`'s file.

The class of tests/extended_class.py (on time, late, extended on time, extended and still late)
hands in the reference answers; nbgrader autogrades it with the course's per-hour penalty and the
extensions file, then `python -m grader grade` grades the same submitted/ tree with the same due
time, penalty and file. Both count lateness from the collect receipts, so the final scores must
be the same, student by student.
"""

import csv
import io

import pytest
from classroom import reference_answers, write_student
from conftest import ASSIGNMENT, autograde, enrol, nbgrader, new_course
from extended_class import DUE, EXTENDED_DUE, PENALTY, PENALTY_PER_HOUR, hand_in
from extended_class import EXTENSIONS_CSV as EXTENSIONS
from grader_cli import read_grades, run_grader

pytestmark = [pytest.mark.kernel, pytest.mark.nbgrader, pytest.mark.bwrap, pytest.mark.slow]

PLUGINS = "grader.integrations.nbgrader_plugins"
CONFIG = f"""
c.AssignLatePenalties.plugin_class = "{PLUGINS}.PerHourPenalty"
c.PerHourPenalty.points_per_hour = {PENALTY_PER_HOUR}
c.PerHourPenalty.extensions = os.path.join(c.CourseDirectory.root, "extensions.csv")
c.MoodleExport.extensions = c.PerHourPenalty.extensions
c.MoodleExport.comments = True
"""


@pytest.fixture(scope="module")
def extended_course(tmp_path_factory):
    """The class autograded by nbgrader, exported, and graded by the grader alike."""
    root = new_course(tmp_path_factory, "extensions", CONFIG)
    (root / "extensions.csv").write_text(EXTENSIONS, encoding="utf-8")
    work = write_student(tmp_path_factory.mktemp("work"), "reference", reference_answers())
    students = hand_in(root / "submitted", work)
    enrol(root, students)
    nbgrader(root, "db", "assignment", "add", ASSIGNMENT, f"--duedate={DUE}")
    done = autograde(root, "--force")
    assert done.returncode == 0, done.stderr[-3000:]
    nbgrader(root, "export", "--to", str(root / "grades.csv"))
    moodle = f"{PLUGINS}.MoodleExport"
    nbgrader(root, "export", f"--exporter={moodle}", "--to", str(root / "nbgrader-moodle.csv"))
    grader = run_grader(
        *("grade", "submitted", "--out", "grader-grades", "--due", DUE),
        *("--late-policy", f"per-hour:{PENALTY_PER_HOUR:g}", "--extensions", "extensions.csv"),
        cwd=root,
    )
    assert grader.returncode == 0, grader.stderr
    return root


def rows(path, key):
    text = path.read_text(encoding="utf-8")
    return {row[key]: row for row in csv.DictReader(io.StringIO(text))}


def test_nbgrader_and_the_grader_give_the_same_final_score_to_every_student(extended_course):
    exported = rows(extended_course / "grades.csv", "student_id")
    graded = read_grades(extended_course / "grader-grades")
    assert sorted(graded) == sorted(PENALTY)
    for student, penalty in PENALTY.items():
        assert float(exported[student]["late_submission_penalty"]) == penalty, student
        assert exported[student]["score"] == graded[student]["final_score"], student
        assert float(graded[student]["late_penalty"]) == penalty, student
    assert float(graded["on-time"]["final_score"]) == 70.0  # the reference: every penalty bites


def test_nbgraders_moodle_export_names_the_students_with_an_extension(extended_course):
    moodle = rows(extended_course / "nbgrader-moodle.csv", "Username")
    assert sorted(moodle) == sorted(PENALTY)
    for student, row in moodle.items():
        named = "Extension: due " + EXTENDED_DUE[student] in row.get("Feedback", "")
        assert named == bool(EXTENDED_DUE[student]), (student, row)
