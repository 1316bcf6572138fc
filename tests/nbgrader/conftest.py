"""One temporary nbgrader course, taken once through the whole workflow, shared by these tests.

The course root holds a copy of the repository's nbgrader_config.py and solutions/, its
gradebook lives in the root too, and nbgrader runs through its own command line exactly as an
instructor would run it: generate_assignment, db student import, autograde (once, for the whole
class), generate_feedback and export. `python -m grader grade` then grades the same submitted/
tree, so the tests can compare the two.
"""

import csv
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from classroom import ASSIGNMENT, write_class
from nbgrader.api import Gradebook

from grader.model import CATEGORIES
from grader.paths import SOLUTIONS
from tooling.paths import NBGRADER_CONFIG

VENV_BIN = Path(sys.executable).parent
# In the gradebook but never submitted anything.
ABSENT_STUDENT = "nobody"
# The notebook that holds the category grade cells.
GRADED_NOTEBOOK = "07-invoke-tool"
# Text of the category grade cells' hidden region, which students must never see.
HIDDEN_REGION_TEXT = ("BEGIN HIDDEN TESTS", "grades this category from the notebooks as submitted")


@dataclass(frozen=True)
class GradedCourse:
    """The course root after the workflow, with what each step said."""

    root: Path
    students: dict  # submitting student -> what the submission is
    autograde: subprocess.CompletedProcess
    autograde_seconds: float

    def export_rows(self):
        """Return nbgrader's exported grades, {student: row}."""
        with open(self.root / "grades.csv", newline="", encoding="utf-8") as file:
            return {row["student_id"]: row for row in csv.DictReader(file)}

    def grader_rows(self):
        """Return the grades `python -m grader grade` wrote, {student: row}."""
        path = self.root / "grader-grades" / "grades.csv"
        with open(path, newline="", encoding="utf-8") as file:
            return {row["student"]: row for row in csv.DictReader(file)}

    def feedback_html(self, student):
        """Return the feedback page of the graded notebook for `student`."""
        path = self.root / "feedback" / student / ASSIGNMENT / f"{GRADED_NOTEBOOK}.html"
        return path.read_text(encoding="utf-8")


def nbgrader(root, *arguments, check=True):
    """Run the `nbgrader` command in `root`; return the finished process."""
    environment = dict(os.environ)
    # nbgrader shells out to `alembic` for its gradebook, so the venv's bin must be on PATH.
    environment["PATH"] = os.pathsep.join([str(VENV_BIN), environment.get("PATH", "")])
    result = subprocess.run(
        [str(VENV_BIN / "nbgrader"), *arguments],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    if check:
        assert result.returncode == 0, f"nbgrader {arguments[0]} failed:\n{result.stderr}"
    return result


@pytest.fixture(scope="session")
def graded_course(tmp_path_factory):
    """Take a temporary course through nbgrader's workflow and through the grader."""
    root = tmp_path_factory.mktemp("nbgrader") / "course"
    shutil.copytree(SOLUTIONS / ASSIGNMENT, root / "solutions" / ASSIGNMENT)
    shutil.copy2(NBGRADER_CONFIG, root / "nbgrader_config.py")
    nbgrader(root, "generate_assignment", ASSIGNMENT, "--force")
    students = write_class(root / "submitted")
    roster = root / "students.csv"
    roster.write_text("\n".join(["id", *students, ABSENT_STUDENT]) + "\n", encoding="utf-8")
    nbgrader(root, "db", "student", "import", str(roster))
    started = time.monotonic()
    autograde = nbgrader(root, "autograde", ASSIGNMENT, "--force", check=False)
    autograde_seconds = time.monotonic() - started
    # Kept with the course, so a failing test can be read against nbgrader's own log.
    (root / "autograde.log").write_text(autograde.stderr, encoding="utf-8")
    nbgrader(root, "generate_feedback", ASSIGNMENT, "--force")
    nbgrader(root, "export", "--to", str(root / "grades.csv"))
    grader = subprocess.run(
        [sys.executable, "-m", "grader", "grade", "submitted", "--out", "grader-grades"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert grader.returncode == 0, grader.stderr
    return GradedCourse(root, students, autograde, autograde_seconds)


def gradebook_category_scores(root, student):
    """Return {category: score} from the gradebook's grade cells for `student`."""
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        return {
            category: gradebook.find_grade(
                "grade-" + category.replace("_", "-"), GRADED_NOTEBOOK, ASSIGNMENT, student
            ).score
            for category in CATEGORIES
        }
