"""nbgrader's whole classroom cycle, through an exchange folder, with two real Unix students.

The instructor (root, as CI runs) releases the course's lessons into an exchange folder; two
student accounts made for the test with useradd fetch them into their own homes, answer them
(one with the reference answers, one with a budget bug who also edits a locked grade cell),
validate and submit. The instructor collects, sets a due date between the two submissions,
autogrades with the course's per-hour late penalty, generates and releases feedback, and each
student fetches their own. Then `nbgrader export` and the grader, given the same roster and due
date, must agree to the cent, and no command says anything that looks like trouble.
"""

import csv
import json
import os
import pwd
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, timedelta
from pathlib import Path

import pytest
from accounts import python_for_users, remove_account
from classroom import ASSIGNMENT, answer_in_place, budget_bug, reference_answers
from conftest import GRADED_NOTEBOOK
from exchange_students import COURSE_ID, make_student, own_tree, run_as

from grader.gradebook.late import parse_time
from grader.gradebook.times import TIMESTAMP_FILE
from grader.paths import SOLUTIONS
from tooling.paths import NBGRADER_CONFIG

pytestmark = [
    pytest.mark.kernel,
    pytest.mark.nbgrader,
    pytest.mark.bwrap,
    pytest.mark.slow,
    pytest.mark.skipif(
        os.geteuid() != 0, reason="making student accounts needs root (CI runs as root)"
    ),
]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
ABSENT = "nobody"
PENALTY_PER_HOUR = 1.0
TAMPERED_CELL = "grade-envelope"
# Said by nbgrader only when something is wrong with the set-up or the course's own cells.
NOISE = ("is not absolute", "display_data_priority", "not recognized by", "SAWarning")


@dataclass(frozen=True)
class Classroom:
    """The course after the cycle: its folders, the two students, what every command said."""

    base: Path
    root: Path
    exchange: Path
    diligent: str  # submitted the reference answers, on time
    hasty: str  # a budget bug and an edited locked cell, late
    logs: dict  # command name -> combined output, per actor
    due: str

    def home(self, student):
        return Path(pwd.getpwnam(student).pw_dir)


def timestamp_of(root, student):
    """Return the submission time nbgrader recorded for `student`."""
    path = root / "submitted" / student / ASSIGNMENT / TIMESTAMP_FILE
    return parse_time(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def classroom():
    """Take a course and two student accounts through the whole exchange cycle."""
    suffix = secrets.token_hex(3)
    diligent, hasty = f"nbxa{suffix}", f"nbxb{suffix}"
    base = Path(tempfile.mkdtemp(prefix="nbgrader-exchange-"))
    base.chmod(0o755)  # students reach their homes and the exchange through it
    created = []
    try:
        for student in (diligent, hasty):
            make_student(base, student)
            created.append(student)
        yield _run_cycle(base, diligent, hasty)
    finally:
        for student in created:
            remove_account(student)
        shutil.rmtree(base, ignore_errors=True)


def _run_cycle(base, diligent, hasty):
    root, exchange = base / "course", base / "exchange"
    root.mkdir(mode=0o700)  # the instructor's: solutions and gradebook, no student reads it
    shutil.copytree(SOLUTIONS / ASSIGNMENT, root / "solutions" / ASSIGNMENT)
    # The course's own config, with the two settings an instructor edits for their machine.
    config = NBGRADER_CONFIG.read_text(encoding="utf-8") + (
        f"\nc.Exchange.root = {str(exchange)!r}\n"
        "c.AssignLatePenalties.plugin_class = "
        '"grader.integrations.nbgrader_plugins.PerHourPenalty"\n'
        f"c.PerHourPenalty.points_per_hour = {PENALTY_PER_HOUR}\n"
    )
    (root / "nbgrader_config.py").write_text(config, encoding="utf-8")
    roster = root / "students.csv"
    roster.write_text("\n".join(["id", diligent, hasty, ABSENT]) + "\n", encoding="utf-8")
    logs = {}

    def instructor(*arguments, check=True):
        output = run_as(None, root, *arguments, check=check)
        logs.setdefault(arguments[0], []).append(output)
        return output

    python = python_for_users(base)

    def student(user, *arguments):
        output = run_as(user, pwd.getpwnam(user).pw_dir, *arguments, python=python)
        logs.setdefault(arguments[0], []).append(output)
        return output

    instructor("generate_assignment", ASSIGNMENT, "--force")
    instructor("db", "student", "import", str(roster))
    instructor("release_assignment", ASSIGNMENT)
    answers = reference_answers()
    tampered = {TAMPERED_CELL: "# full marks, please\n"}
    for user, user_answers, edits in (
        (diligent, answers, None),
        (hasty, budget_bug(answers), tampered),
    ):
        assert ASSIGNMENT in student(user, "list")
        student(user, "fetch_assignment", ASSIGNMENT)
        folder = Path(pwd.getpwnam(user).pw_dir) / ASSIGNMENT
        answer_in_place(folder, user_answers, edits)
        own_tree(folder, user)
        notebooks = sorted(path.name for path in folder.glob("*.ipynb"))
        logs.setdefault(f"validate {user}", []).append(
            run_as(user, folder, "validate", *notebooks, python=python, check=False)
        )
        student(user, "submit", ASSIGNMENT)
        time.sleep(1.2)  # the second student submits measurably later
    instructor("collect", ASSIGNMENT)
    # Due between the two submissions: the diligent student is on time, the hasty one late.
    due = timestamp_of(root, diligent) + timedelta(seconds=0.5)
    due_text = due.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    instructor("db", "assignment", "add", ASSIGNMENT, f"--duedate={due_text}")
    instructor("autograde", ASSIGNMENT)
    instructor("generate_feedback", ASSIGNMENT)
    instructor("release_feedback", ASSIGNMENT)
    for user in (diligent, hasty):
        student(user, "fetch_feedback", ASSIGNMENT)
    instructor("export")
    instructor(
        "export",
        "--exporter=grader.integrations.nbgrader_plugins.CanvasExport",
        "--to=nbgrader-canvas.csv",
    )
    _keep_logs(logs)
    return Classroom(base, root, exchange, diligent, hasty, logs, due_text)


def _keep_logs(logs):
    """Keep what every command said in test-artifacts/, to read when a test here fails."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    text = "".join(
        f"==== {name} ====\n{output}\n" for name, outputs in logs.items() for output in outputs
    )
    (ARTIFACTS / "nbgrader-exchange-cycle.log").write_text(text, encoding="utf-8")


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as stream:
        return list(csv.DictReader(stream))


def feedback_pages(home):
    """Return the feedback pages a student fetched, by notebook name."""
    return {p.stem: p for p in (home / ASSIGNMENT / "feedback").rglob("*.html")}


def test_each_student_fetches_only_their_own_feedback(classroom):
    for user in (classroom.diligent, classroom.hasty):
        pages = feedback_pages(classroom.home(user))
        assert GRADED_NOTEBOOK in pages, user
        page = pages[GRADED_NOTEBOOK].read_text(encoding="utf-8")
        assert "hidden tests passed" in page and "BEGIN HIDDEN TESTS" not in page
        assert all(p.stat().st_uid == pwd.getpwnam(user).pw_uid for p in pages.values())
    hasty_page = feedback_pages(classroom.home(classroom.hasty))[GRADED_NOTEBOOK]
    assert "Not yet:" in hasty_page.read_text(encoding="utf-8")  # the budget bug, named


def test_a_student_cannot_read_what_another_submitted(classroom):
    inbound = classroom.exchange / COURSE_ID / "inbound"
    listing = subprocess.run(
        ["/bin/ls", str(inbound)],
        user=pwd.getpwnam(classroom.diligent).pw_uid,
        capture_output=True,
        text=True,
        check=False,
    )
    assert listing.returncode != 0 and "Permission denied" in listing.stderr


def test_the_late_student_loses_the_per_hour_penalty_and_the_export_has_two_decimals(classroom):
    rows = {row["student_id"]: row for row in read_csv(classroom.root / "grades.csv")}
    on_time, late = rows[classroom.diligent], rows[classroom.hasty]
    assert on_time["late_submission_penalty"] == "0.00" and on_time["score"] == "70.00"
    assert late["late_submission_penalty"] == f"{PENALTY_PER_HOUR:.2f}"
    assert float(late["score"]) == float(late["raw_score"]) - PENALTY_PER_HOUR
    assert rows[ABSENT]["score"] == "0.00"
    numbers = [row[c] for row in rows.values() for c in ("raw_score", "score", "max_score")]
    assert all(re.fullmatch(r"\d+\.\d{2}", number) for number in numbers), numbers


def test_the_grader_with_the_same_roster_and_due_date_writes_the_same_lms_file(classroom):
    grader = subprocess.run(
        [
            *(sys.executable, "-m", "grader", "grade", "submitted", "--out", "grader-grades"),
            *("--roster", "students.csv", "--due", classroom.due),
            *("--late-policy", f"per-hour:{PENALTY_PER_HOUR:g}", "--lms", "canvas"),
        ],
        cwd=classroom.root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert grader.returncode == 0, grader.stderr
    ours = (classroom.root / "grader-grades" / "grades-canvas.csv").read_text(encoding="utf-8")
    theirs = (classroom.root / "nbgrader-canvas.csv").read_text(encoding="utf-8")
    assert ours == theirs
    assert f"\n{ABSENT},,,{ABSENT},,0.00\n" in ours
    statuses = {
        row["student"]: row["status"]
        for row in read_csv(classroom.root / "grader-grades" / "grades.csv")
    }
    assert statuses[ABSENT] == "missing"


def test_only_a_changed_locked_cell_draws_a_checksum_warning(classroom):
    autograde = "\n".join(classroom.logs["autograde"])
    warnings = re.findall(r"Attribute 'checksum' for cell (\S+) has changed", autograde)
    assert warnings == [TAMPERED_CELL]
    cells = json.loads(
        (
            classroom.root
            / "autograded"
            / classroom.hasty
            / ASSIGNMENT
            / f"{GRADED_NOTEBOOK}.ipynb"
        ).read_text(encoding="utf-8")
    )["cells"]
    restored = [
        c for c in cells if c["metadata"].get("nbgrader", {}).get("grade_id") == TAMPERED_CELL
    ]
    assert "full marks, please" not in "".join(restored[0]["source"])


def test_no_command_says_anything_that_looks_like_trouble(classroom):
    everything = "\n".join(text for outputs in classroom.logs.values() for text in outputs)
    for noise in NOISE:
        assert noise not in everything, noise
    assert "[ERROR]" not in everything and "| ERROR]" not in everything


def test_validate_in_each_students_account_tells_a_finished_lesson_from_a_buggy_one(classroom):
    [finished] = classroom.logs[f"validate {classroom.diligent}"]
    [buggy] = classroom.logs[f"validate {classroom.hasty}"]
    for output in (finished, buggy):
        assert "Traceback (most recent call last)" not in output, output
        assert "Success!" in output
    assert "VALIDATION FAILED" not in finished
    assert "VALIDATION FAILED ON 1 CELL" in buggy and "budget_error" in buggy
    assert "HAVE CHANGED" in buggy  # the locked cell the hasty student edited
