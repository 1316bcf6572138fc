"""`python hand_in.py` runs the checks `check-saved-work` runs, then zips the saved notebooks."""

import json
import shutil
import zipfile

import pytest
from student_mistakes import COUNTS_CHARACTERS

from course.checks import saved_work_lines
from course.handin import IDENTITY_FILE, hand_in
from course.manifest import load_course
from grader.paths import LESSONS, SOLUTIONS
from tooling.student.hand_in import main

pytestmark = []

COURSE = load_course()
ZIP_NAME = f"{COURSE.assignment}-submission.zip"
STEP_4 = COURSE.steps[3]


@pytest.fixture
def unzipped(tmp_path):
    """A course as a student unzipped it and finished it: the solutions in the lesson folder."""
    folder = tmp_path / "lessons" / COURSE.assignment
    shutil.copytree(SOLUTIONS / COURSE.assignment, folder)
    (folder / ".check-history.json").write_text("{}", encoding="utf-8")
    (folder / ".ipynb_checkpoints").mkdir()
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    return tmp_path


def save_exercise(folder, step, cell_id, source):
    """Replace an exercise cell's source in a saved notebook, as a student's save would."""
    path = folder / step.notebook
    notebook = json.loads(path.read_text(encoding="utf-8"))
    [cell] = [c for c in notebook["cells"] if c.get("id") == cell_id]
    cell["source"] = source
    path.write_text(json.dumps(notebook), encoding="utf-8")


def test_the_zip_holds_the_saved_notebooks_and_nothing_else(unzipped):
    done = hand_in(unzipped)
    assert done.zip_path == unzipped / ZIP_NAME
    with zipfile.ZipFile(done.zip_path) as archive:
        names = archive.namelist()
    assert names == [f"{COURSE.assignment}/{step.notebook}" for step in COURSE.all_steps]
    assert done.failures == 0
    assert done.lines[-1] == "Every step the grader reads passes its visible check."


def test_it_says_what_check_saved_work_says_a_saved_step_4_that_fails_its_check_included(
    unzipped, capsys
):
    # The issue: check-saved-work showed ✗ for step 4; hand_in.py said nothing of it.
    folder = unzipped / "lessons" / COURSE.assignment
    save_exercise(folder, STEP_4, "budget-error", COUNTS_CHARACTERS)
    assert main([str(unzipped)]) == 0
    out = capsys.readouterr().out
    for line in saved_work_lines(folder):
        assert line in out
    assert "✗ Step 4 (04-byte-budget.ipynb): `budget_error` as saved does not pass its check" in out
    assert "function(s) marked ✗ above will lose points" in out


def test_it_works_from_the_lesson_folder_itself_and_names_unfinished_steps(unzipped, tmp_path):
    folder = unzipped / "lessons" / COURSE.assignment
    step_2 = COURSE.steps[1]
    shutil.copy2(LESSONS / COURSE.assignment / step_2.notebook, folder / step_2.notebook)
    done = hand_in(folder, tmp_path / "out.zip")
    crossed = [line for line in done.lines if line.startswith("✗")]
    assert crossed[0].startswith(
        "✗ Step 2 (02-failure-codes.ipynb): `failure_code` is not finished"
    )
    assert done.zip_path == tmp_path / "out.zip"


def test_the_same_notebooks_give_the_same_zip(unzipped):
    first = hand_in(unzipped, unzipped / "a.zip").zip_path.read_bytes()
    assert hand_in(unzipped, unzipped / "b.zip").zip_path.read_bytes() == first


def test_no_notebook_is_one_line_on_stderr_and_exit_1(tmp_path, capsys):
    assert main([str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: No notebook of the lesson was found")
    assert err.count("\n") == 1
    assert not (tmp_path / ZIP_NAME).exists()


def test_the_command_says_where_the_zip_is(unzipped, capsys):
    assert main([str(unzipped)]) == 0
    out = capsys.readouterr().out
    assert "Your saved notebooks, loaded as the grader loads them:" in out
    assert f"Wrote {unzipped / ZIP_NAME}" in out


def test_student_is_given_once_and_named_by_every_later_zip(unzipped, capsys):
    assert main([str(unzipped), "--student", "ada"]) == 0
    assert "The zip names you as 'ada'." in capsys.readouterr().out
    (unzipped / ZIP_NAME).unlink()
    assert main([str(unzipped)]) == 0
    with zipfile.ZipFile(unzipped / ZIP_NAME) as archive:
        assert json.loads(archive.read(IDENTITY_FILE)) == {"student": "ada"}


def test_without_a_student_the_command_says_the_zip_names_no_one(unzipped, capsys):
    assert main([str(unzipped)]) == 0
    assert "⚠ The zip does not say who you are" in capsys.readouterr().out
