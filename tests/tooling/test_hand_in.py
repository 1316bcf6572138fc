"""`python hand_in.py` zips the saved notebooks and says which steps are unfinished."""

import shutil
import zipfile

import pytest

from course.manifest import load_course
from grader.paths import LESSONS, SOLUTIONS
from tooling.student.hand_in import main, package

COURSE = load_course()
ZIP_NAME = f"{COURSE.assignment}-submission.zip"


@pytest.fixture
def unzipped(tmp_path):
    """A course as a student unzipped it and finished it: the solutions in the lesson folder."""
    folder = tmp_path / "lessons" / COURSE.assignment
    shutil.copytree(SOLUTIONS / COURSE.assignment, folder)
    (folder / ".check-history.json").write_text("{}", encoding="utf-8")
    (folder / ".ipynb_checkpoints").mkdir()
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    return tmp_path


def test_the_zip_holds_the_saved_notebooks_and_nothing_else(unzipped):
    target, lines = package(unzipped)
    assert target == unzipped / ZIP_NAME
    with zipfile.ZipFile(target) as archive:
        names = archive.namelist()
    assert names == [f"{COURSE.assignment}/{step.notebook}" for step in COURSE.all_steps]
    assert len(lines) == len(COURSE.steps)
    assert all(line.startswith("✓") for line in lines), lines


def test_it_works_from_the_lesson_folder_itself_and_names_unfinished_steps(unzipped, tmp_path):
    folder = unzipped / "lessons" / COURSE.assignment
    step_2 = COURSE.steps[1]
    shutil.copy2(LESSONS / COURSE.assignment / step_2.notebook, folder / step_2.notebook)
    _, lines = package(folder, tmp_path / "out.zip")
    assert lines[1].startswith("✗ Step 2 (02-failure-codes.ipynb): `failure_code` is not finished")
    assert [line[0] for line in lines].count("✗") == 1


def test_the_same_notebooks_give_the_same_zip(unzipped):
    first = package(unzipped, unzipped / "a.zip")[0].read_bytes()
    assert package(unzipped, unzipped / "b.zip")[0].read_bytes() == first


def test_no_notebook_is_one_line_on_stderr_and_exit_1(tmp_path, capsys):
    assert main([str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: No notebook of the lesson was found")
    assert err.count("\n") == 1
    assert not (tmp_path / ZIP_NAME).exists()


def test_the_command_says_where_the_zip_is(unzipped, capsys):
    assert main([str(unzipped)]) == 0
    out = capsys.readouterr().out
    assert "Your saved work, as the grader will read it:" in out
    assert f"Wrote {unzipped / ZIP_NAME}" in out
