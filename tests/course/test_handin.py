"""The hand-in zip says whose it is: the login typed once, kept beside the notebooks.

Every student's zip has one default name, so the grader names each by the `student.json` in
it (grader/intake/handins.py). These test course/handin.py's functions, not a browser.
"""

import json
import zipfile

import pytest
from builders import copy_solutions

from course.handin import (
    IDENTITY_FILE,
    MAX_LOGIN,
    REMEMBERED_FILE,
    hand_in,
    remember_student,
    remembered_student,
    set_student,
)
from course.manifest import load_course

pytestmark = []

COURSE = load_course()


@pytest.fixture
def lesson(tmp_path):
    """A lesson folder as a student who finished it saved it (the browser site's layout)."""
    copy_solutions(tmp_path)
    return tmp_path


def identity_in(zip_path):
    """The identity file of a hand-in zip, as JSON, or None if the zip has none."""
    with zipfile.ZipFile(zip_path) as archive:
        if IDENTITY_FILE not in archive.namelist():
            return None
        return json.loads(archive.read(IDENTITY_FILE))


def test_the_zip_names_the_student_given_and_holds_nothing_but_the_login(lesson):
    done = hand_in(lesson, lesson / "out.zip", student="  ada.lovelace ")
    assert identity_in(done.zip_path) == {"student": "ada.lovelace"}
    assert done.student == "ada.lovelace"


def test_a_login_typed_once_is_remembered_beside_the_notebooks_and_named_by_later_zips(lesson):
    assert remember_student("grace", lesson) == "grace"
    assert (lesson / REMEMBERED_FILE).is_file()
    assert remember_student("", lesson) == "grace", "an empty cell forgot the login"
    done = hand_in(lesson, lesson / "later.zip")
    assert identity_in(done.zip_path) == {"student": "grace"}


def test_the_handout_layout_keeps_the_login_in_the_lesson_folder(tmp_path):
    folder = tmp_path / "lessons" / COURSE.assignment
    folder.mkdir(parents=True)
    copy_solutions(folder)
    remember_student("linus", tmp_path)
    assert (folder / REMEMBERED_FILE).is_file()
    assert not (tmp_path / REMEMBERED_FILE).exists()
    assert remembered_student(tmp_path) == "linus"


def test_without_a_login_the_zip_names_no_one_and_says_how_to_fix_it(lesson, capsys):
    done = hand_in(lesson, lesson / "anonymous.zip")
    assert identity_in(done.zip_path) is None
    assert done.student == ""
    set_student("", lesson)
    assert "⚠ Type your login between the quotes above" in capsys.readouterr().out


def test_a_login_longer_than_a_login_is_refused_before_any_zip(lesson):
    with pytest.raises(ValueError, match=f"longer than {MAX_LOGIN} characters"):
        hand_in(lesson, lesson / "long.zip", student="x" * (MAX_LOGIN + 1))
    assert not (lesson / "long.zip").exists()


def test_an_unreadable_remembered_file_is_no_login(lesson):
    (lesson / REMEMBERED_FILE).write_text("not json", encoding="utf-8")
    assert remembered_student(lesson) == ""
    (lesson / REMEMBERED_FILE).write_text('{"student": 7}', encoding="utf-8")
    assert remembered_student(lesson) == ""


def test_the_same_work_and_login_give_the_same_zip(lesson):
    first = hand_in(lesson, lesson / "a.zip", student="ada").zip_path.read_bytes()
    assert hand_in(lesson, lesson / "b.zip", student="ada").zip_path.read_bytes() == first
