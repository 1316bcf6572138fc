"""Temporary nbgrader courses, each taken once through the workflow, shared by these tests.

Each course root holds a copy of the repository's nbgrader_config.py and solutions/, its
gradebook lives in the root too, and nbgrader runs through its own command line exactly as an
instructor would run it: generate_assignment, db student import, autograde (once, for the whole
class), generate_feedback and export.

- `graded_course`: the class of classroom.py; `python -m grader grade` then grades the same
  submitted/ tree, so the tests can compare the two.
- `attacked_course`: two students whose first cell attacks from the kernel (attacks.py), beside
  ada and grace, who are in `graded_course` too: a run without the attack to compare with.
- `unconfined_course`: autograde where bubblewrap is not on PATH, first as it is (it refuses),
  then with the setting that runs student code with the instructor's rights.
"""

import csv
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from attacks import (
    LINKED_GRADEBOOK,
    attack_cell,
    attack_targets,
    reads_what_it_must_not,
    writes_outside_its_folder,
)
from classroom import ASSIGNMENT, budget_bug, reference_answers, write_class, write_student
from nbgrader.api import Gradebook

from grader.model import CATEGORIES
from grader.paths import HIDDEN_TESTS, SOLUTIONS
from tooling.paths import NBGRADER_CONFIG

VENV_BIN = Path(sys.executable).parent
# In the gradebook but never submitted anything.
ABSENT_STUDENT = "nobody"
# The notebook that holds the category grade cells.
GRADED_NOTEBOOK = "07-invoke-tool"
# The notebook whose exercise cell (make-envelope) an attack is put in: the first one run.
FIRST_NOTEBOOK = "01-the-envelope"
# Text of the category grade cells' hidden region, which students must never see.
HIDDEN_REGION_TEXT = ("BEGIN HIDDEN TESTS", "grades this category from the notebooks as submitted")
# The attackers answer as grace does (a budget bug), their honest twin; they are graded after
# ada and before grace.
WRITER = "attacker-writes"
READER = "attacker-reads"
TWIN = "grace"
# The attacked course's exchange, in its root (the config file sets the root just before).
EXCHANGE_IN_COURSE = '\nc.Exchange.root = os.path.join(c.CourseDirectory.root, "exchange")\n'
# The setting that lets autograde run student code unconfined.
OPT_OUT = "--ConfinedExecute.run_student_code_with_instructor_rights=True"


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


@dataclass(frozen=True)
class AttackedCourse:
    """The attacked course after autograde, with what could have changed around it."""

    root: Path
    autograde: subprocess.CompletedProcess
    before: dict  # the course's files before autograde, as file_states gives them
    after: dict
    connections: int  # how many connections the listener on the instructor's machine got


@dataclass(frozen=True)
class UnconfinedCourse:
    """A course autograded without bubblewrap: refused, then run with the instructor's rights."""

    root: Path
    refused: subprocess.CompletedProcess
    unconfined: subprocess.CompletedProcess


def nbgrader(root, *arguments, check=True, path=None):
    """Run the `nbgrader` command in `root` (with PATH set to `path`, if given)."""
    environment = dict(os.environ)
    # nbgrader shells out to `alembic` for its gradebook, so the venv's bin must be on PATH.
    environment["PATH"] = path or os.pathsep.join([str(VENV_BIN), environment.get("PATH", "")])
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


def new_course(tmp_path_factory, name, config=""):
    """Make a course root with the course's config (and `config` added) and its lessons."""
    root = tmp_path_factory.mktemp(name) / "course"
    shutil.copytree(SOLUTIONS / ASSIGNMENT, root / "solutions" / ASSIGNMENT)
    shutil.copy2(NBGRADER_CONFIG, root / "nbgrader_config.py")
    with open(root / "nbgrader_config.py", "a", encoding="utf-8") as file:
        file.write(config)
    nbgrader(root, "generate_assignment", ASSIGNMENT, "--force")
    return root


def enrol(root, students):
    """Import `students` into the course's gradebook."""
    roster = root / "students.csv"
    roster.write_text("\n".join(["id", *students]) + "\n", encoding="utf-8")
    nbgrader(root, "db", "student", "import", str(roster))


def autograde(root, *options, path=None):
    """Run `nbgrader autograde` on the course; keep its log with the course, for reading."""
    done = nbgrader(root, "autograde", ASSIGNMENT, *options, check=False, path=path)
    with open(root / "autograde.log", "a", encoding="utf-8") as log:
        log.write(done.stderr)
    return done


def file_states(root):
    """Return {path: its content's hash, or where it links} for every file under `root`."""
    states = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            if path.is_symlink():
                states[str(path.relative_to(root))] = f"link to {os.readlink(path)}"
            else:
                states[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return states


def protected_states(root):
    """Return the states of what no kernel may change: all but autograde's own output."""
    states = {
        folder: file_states(root / folder)
        for folder in ("solutions", "lessons", "submitted", "exchange")
        if (root / folder).is_dir()
    }
    config = (root / "nbgrader_config.py").read_bytes()
    states["nbgrader_config.py"] = hashlib.sha256(config).hexdigest()
    return states


@pytest.fixture(scope="session")
def graded_course(tmp_path_factory):
    """Take a temporary course through nbgrader's workflow and through the grader."""
    root = new_course(tmp_path_factory, "nbgrader")
    students = write_class(root / "submitted")
    enrol(root, [*students, ABSENT_STUDENT])
    started = time.monotonic()
    done = autograde(root, "--force")
    autograde_seconds = time.monotonic() - started
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
    return GradedCourse(root, students, done, autograde_seconds)


@pytest.fixture(scope="session")
def attacked_course(tmp_path_factory):
    """Autograde ada, the two attackers and their honest twin grace in one real run."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        root = new_course(tmp_path_factory, "attacked", EXCHANGE_IN_COURSE)
        exchange = root / "exchange"
        (exchange / "bounded-results" / "outbound").mkdir(parents=True)
        answers = reference_answers()
        buggy = budget_bug(answers)
        write_student(root / "submitted", "ada", answers)
        write_student(root / "submitted", TWIN, buggy)
        targets = attack_targets(root, WRITER, TWIN)
        writer = attack_cell(writes_outside_its_folder, targets, buggy["make-envelope"])
        write_student(root / "submitted", WRITER, dict(buggy, **{"make-envelope": writer}))
        linked = root / "submitted" / READER / ASSIGNMENT / LINKED_GRADEBOOK
        targets = attack_targets(
            root,
            READER,
            "ada",
            exchange=str(exchange),
            hidden_tests=str(HIDDEN_TESTS),
            linked_gradebook=LINKED_GRADEBOOK,
            port=port,
        )
        reader = attack_cell(reads_what_it_must_not, targets, buggy["make-envelope"])
        write_student(root / "submitted", READER, dict(buggy, **{"make-envelope": reader}))
        enrol(root, ["ada", WRITER, READER, TWIN])
        os.symlink(root / "gradebook.db", linked)
        before = protected_states(root)
        done = autograde(root, "--force")
        after = protected_states(root)
        listener.setblocking(False)
        connections = 0
        while True:
            try:
                listener.accept()[0].close()
            except BlockingIOError:
                break
            connections += 1
    return AttackedCourse(root, done, before, after, connections)


@pytest.fixture(scope="session")
def unconfined_course(tmp_path_factory):
    """Autograde the writer where bubblewrap is not on PATH: as it is, then with the opt-out."""
    root = new_course(tmp_path_factory, "unconfined")
    buggy = budget_bug(reference_answers())
    targets = attack_targets(root, WRITER, TWIN)
    writer = attack_cell(writes_outside_its_folder, targets, buggy["make-envelope"])
    write_student(root / "submitted", WRITER, dict(buggy, **{"make-envelope": writer}))
    enrol(root, [WRITER])
    without_bubblewrap = str(VENV_BIN)  # nbgrader, alembic and Python: nothing of /usr/bin
    refused = autograde(root, path=without_bubblewrap)
    # No --force: the refused run must have left the student to be graded by the next one.
    unconfined = autograde(root, OPT_OUT, path=without_bubblewrap)
    return UnconfinedCourse(root, refused, unconfined)


def gradebook_category_scores(root, student):
    """Return {category: score} from the gradebook's grade cells for `student`."""
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        return {
            category: gradebook.find_grade(
                "grade-" + category.replace("_", "-"), GRADED_NOTEBOOK, ASSIGNMENT, student
            ).score
            for category in CATEGORIES
        }


def gradebook_rows(root, student):
    """Return every grade of `student` in the gradebook, {(notebook, grade cell): score}."""
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission(ASSIGNMENT, student)
        return {
            (notebook.name, grade.name): grade.score
            for notebook in submission.notebooks
            for grade in notebook.grades
        }
