"""A folder of hand-in zips is graded whatever their names: each by the student its zip names.

Every student's zip has the default name (course/handin.py); browsers save a second download
as `… (1).zip`. Which of two zips of one student is kept is decided by the instructor's disk
(the zip file's modification time), never by a time the student wrote inside the zip.
"""

import json
import os
import zipfile
from pathlib import Path

import pytest
from grader_cli import read_grades, run_grader

from course.handin import IDENTITY_FILE, hand_in, zip_name
from course.manifest import load_course
from grader.intake.discover import discover
from grader.intake.handins import unpacking
from grader.model import UsageError
from grader.paths import SOLUTIONS

pytestmark = []

COURSE = load_course()
DEFAULT = zip_name(COURSE)
FIRST = COURSE.steps[0].notebook
EARLY, LATE = 1_700_000_000, 1_800_000_000  # seconds: two download times on this disk


def hand_in_zip(
    path, student=None, *, date=(1980, 1, 1, 0, 0, 0), extra=(), mtime=EARLY, notebook=True
):
    """Write a hand-in zip at `path` as course/handin.py lays it out, naming `student` if given.

    `date` is every entry's own date and `extra` more (name, bytes) entries: what a student
    could write. `mtime` is the zip file's time on this disk, which the instructor's copy sets.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    saved = (SOLUTIONS / COURSE.assignment / FIRST).read_bytes()
    entries = [*([(f"{COURSE.assignment}/{FIRST}", saved)] if notebook else []), *extra]
    if student is not None:
        entries.append((IDENTITY_FILE, json.dumps({"student": student}).encode()))
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries:
            archive.writestr(zipfile.ZipInfo(name, date), data)
    os.utime(path, (mtime, mtime))
    return path


def opened(*paths):
    """Discover `paths` with their zips opened; return {student: Found} and the notes."""
    with unpacking() as zips:
        found = discover(paths, COURSE, zips.open)
        # The notebooks are read inside the block: the scratch folder goes when it ends.
        held = {e.student: sorted(os.listdir(e.path)) for e in found if e.source}
    return {entry.student: entry for entry in found}, held, zips.notes


def test_three_default_named_zips_are_three_students_named_by_their_student_json(tmp_path):
    hand_in_zip(tmp_path / "class" / "from-lms-17" / DEFAULT, "ada")
    hand_in_zip(tmp_path / "class" / DEFAULT.replace(".zip", " (1).zip"), "grace")
    hand_in_zip(tmp_path / "class" / DEFAULT.replace(".zip", " (2).zip"), "linus")
    found, held, notes = opened(tmp_path / "class")
    assert sorted(found) == ["ada", "grace", "linus"]
    assert all(entry.kind == "lessons" for entry in found.values())
    assert held["ada"] == [FIRST]
    assert found["grace"].source == str(tmp_path / "class" / "bounded_results-submission (1).zip")
    assert notes == []


@pytest.mark.parametrize("later", ["first", "second"])
def test_of_two_zips_of_one_student_the_later_on_this_disk_is_kept_and_said(tmp_path, later):
    first = hand_in_zip(tmp_path / "class" / "a" / DEFAULT, "ada", mtime=EARLY)
    second = hand_in_zip(tmp_path / "class" / "b" / DEFAULT, "ada", mtime=EARLY)
    kept = first if later == "first" else second
    os.utime(kept, (LATE, LATE))
    found, _held, notes = opened(tmp_path / "class")
    assert found["ada"].source == str(kept)
    assert notes == [
        f"ada: 2 zips name this student, {first} and {second}; kept {kept} "
        "(the latest modified on this disk)."
    ]


def test_zips_of_one_student_with_one_time_keep_the_file_name_sorting_last(tmp_path):
    # Written in the order that a rule of "the last one listed" or "the first one" would fail.
    newer_name = hand_in_zip(tmp_path / "class" / "ada-b.zip", "ada", mtime=LATE)
    older_name = hand_in_zip(tmp_path / "class" / "ada-a.zip", "ada", mtime=LATE)
    found, _held, [note] = opened(tmp_path / "class")
    assert found["ada"].source == str(newer_name)
    assert note == (
        f"ada: 2 zips name this student, {older_name} and {newer_name}; kept {newer_name} (they "
        "have the same modification time on this disk, and its file name sorts last)."
    )


@pytest.mark.parametrize("on_disk_later", ["honest", "claims_late"])
def test_times_the_student_wrote_inside_the_zip_change_nothing(tmp_path, on_disk_later):
    # One zip claims to be the later one in every way a student can write: its entries' dates,
    # a time in its student.json, a timestamp file. Only the disk's time decides.
    claims = [("timestamp.txt", b"2099-12-31 23:59:59"), ("submitted_at.json", b'"2099-12-31"')]
    honest = hand_in_zip(tmp_path / "class" / "honest.zip", "ada", mtime=EARLY)
    claiming = tmp_path / "class" / "claims-late.zip"
    hand_in_zip(claiming, None, date=(2099, 12, 31, 23, 59, 58), mtime=EARLY, extra=claims)
    with zipfile.ZipFile(claiming, "a") as archive:
        identity = {"student": "ada", "submitted_at": "2099-12-31T23:59:59Z", "mtime": 4e9}
        archive.writestr(IDENTITY_FILE, json.dumps(identity))
    later = honest if on_disk_later == "honest" else claiming
    os.utime(later, (LATE, LATE))
    found, _held, notes = opened(tmp_path / "class")
    assert found["ada"].source == str(later)
    assert f"kept {later} (the latest modified on this disk)" in notes[0]


def test_a_zip_without_student_json_is_named_from_its_file_name_with_a_note(tmp_path):
    hand_in_zip(tmp_path / "class" / "ada.zip", None)
    hand_in_zip(tmp_path / "class" / DEFAULT, "grace")
    found, held, notes = opened(tmp_path / "class")
    assert sorted(found) == ["ada", "grace"]
    assert held["ada"] == [FIRST]
    assert notes == [
        f"{tmp_path / 'class' / 'ada.zip'}: its student.json is not in it, so it is named from "
        "its file name, 'ada'."
    ]


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"not json", 'is not JSON of the form {"student": "login"}'),
        (b'{"student": "../grades.csv"}', "holds a path separator"),
        (b'{"student": "=HYPERLINK()"}', "starts with =, which a spreadsheet"),
        (b'{"student": "   "}', "names no student"),
        (json.dumps({"student": "a" * 101}).encode(), "longer than 100 characters"),
    ],
)
def test_an_unusable_student_json_falls_back_to_the_file_name(tmp_path, content, why):
    hand_in_zip(tmp_path / "ada.zip", None, extra=[(IDENTITY_FILE, content)])
    found, _held, [note] = opened(tmp_path / "ada.zip")
    assert list(found) == ["ada"]
    assert note.startswith(f"{tmp_path / 'ada.zip'}: its student.json ")
    assert why in note
    assert note.endswith("so it is named from its file name, 'ada'.")


def test_a_broken_zip_and_a_linked_zip_are_their_students_results_not_a_stop(tmp_path, capsys):
    hand_in_zip(tmp_path / "class" / DEFAULT, "ada")
    (tmp_path / "class" / "broken.zip").write_bytes(b"PK\x03\x04 not a zip")
    (tmp_path / "class" / "linked.zip").symlink_to(tmp_path / "class" / DEFAULT)
    found, held, _notes = opened(tmp_path / "class")
    assert sorted(found) == ["ada", "broken", "linked"]
    assert held["broken"] == [COURSE.assignment], "a broken zip is graded as holding nothing"
    assert found["linked"].refused.startswith("linked.zip is a link to another file")
    assert "broken.zip could not be unpacked (BadZipFile)" in capsys.readouterr().err


def test_zips_named_alike_with_no_student_json_are_one_line_naming_both(tmp_path):
    first = hand_in_zip(tmp_path / "class" / "a" / DEFAULT, None)
    second = hand_in_zip(tmp_path / "class" / "b" / DEFAULT, None)
    with pytest.raises(UsageError) as raised:
        opened(tmp_path / "class")
    message = str(raised.value)
    assert message == (
        f"two submissions have the student id 'bounded_results-submission': {first} and {second}"
    )


def test_zips_mix_with_the_other_inputs_in_one_folder(tmp_path):
    hand_in_zip(tmp_path / "class" / DEFAULT, "ada")
    (tmp_path / "class" / "grace.py").write_text("x = 1\n", encoding="utf-8")
    lessons = tmp_path / "class" / "linus"
    lessons.mkdir()
    (lessons / FIRST).write_bytes((SOLUTIONS / COURSE.assignment / FIRST).read_bytes())
    found, _held, _notes = opened(tmp_path / "class")
    assert {student: entry.kind for student, entry in found.items()} == {
        "ada": "lessons",
        "grace": "python",
        "linus": "lessons",
    }


def test_a_zip_beside_a_students_notebooks_is_part_of_their_folder_not_a_submission(tmp_path):
    # hand_in saves the zip beside the notebooks: a saved lessons folder is one student.
    lessons = tmp_path / "class" / "ada"
    lessons.mkdir(parents=True)
    (lessons / FIRST).write_bytes((SOLUTIONS / COURSE.assignment / FIRST).read_bytes())
    hand_in_zip(lessons / DEFAULT, "ada")
    found, _held, notes = opened(tmp_path / "class")
    assert list(found) == ["ada"]
    assert found["ada"].source == ""
    assert notes == []


def test_without_an_unpacking_a_folder_of_zips_is_nothing_to_grade(tmp_path):
    hand_in_zip(tmp_path / "class" / DEFAULT, "ada")
    with pytest.raises(UsageError, match="nothing to grade"):
        discover([tmp_path / "class"], COURSE)
    assert Path(tmp_path / "class" / DEFAULT).exists()


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    """Grade a folder of four default-named zips, two of them ada's, as an instructor would."""
    folder = tmp_path_factory.mktemp("class")
    kept = folder / "from-lms-17" / DEFAULT
    kept.parent.mkdir()
    hand_in(SOLUTIONS / COURSE.assignment, kept, student="ada")  # the real hand-in: 70 points
    os.utime(kept, (LATE, LATE))
    dropped = hand_in_zip(folder / DEFAULT.replace(".zip", " (2).zip"), "ada", notebook=False)
    hand_in_zip(folder / DEFAULT.replace(".zip", " (1).zip"), "grace", notebook=False)
    hand_in_zip(folder / DEFAULT, "linus", notebook=False)
    out = tmp_path_factory.mktemp("out")
    completed = run_grader("grade", folder, "--out", out, "--jobs", "1")
    return completed, read_grades(out), kept, dropped


@pytest.mark.bwrap
def test_grade_folder_grades_each_default_named_zip_under_its_students_login(graded_class):
    completed, grades, _kept, _dropped = graded_class
    assert completed.returncode == 0, completed.stderr
    assert sorted(grades) == ["ada", "grace", "linus"]
    assert grades["ada"]["score"] == "70.00", "the later zip on disk was not the one graded"
    assert grades["grace"]["score"] == "0.00"


@pytest.mark.bwrap
def test_the_summary_names_both_zips_of_one_student_and_the_one_kept(graded_class):
    completed, _grades, kept, dropped = graded_class
    line = (
        f"ada: 2 zips name this student, {dropped} and {kept}; kept {kept} (the latest modified "
        "on this disk)."
    )
    assert line in completed.stdout.splitlines()
