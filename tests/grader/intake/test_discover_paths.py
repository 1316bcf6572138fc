"""The discover step finds one submission per student, in any of the accepted layouts."""

import json
import os
from pathlib import Path

import pytest

from course.manifest import load_course
from grader.intake.discover import discover
from grader.model import UsageError

pytestmark = []

COURSE = load_course()
FIRST_NOTEBOOK = COURSE.steps[0].notebook


def write_notebook(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4}), encoding="utf-8")


def described(found):
    return [(entry.student, Path(entry.path).name, entry.kind) for entry in found]


def test_a_lessons_folder_is_one_student_named_after_the_folder(tmp_path):
    write_notebook(tmp_path / "ada" / FIRST_NOTEBOOK)
    assert described(discover([tmp_path / "ada"])) == [("ada", "ada", "lessons")]


def test_a_single_notebook_and_a_single_python_file_are_named_by_their_stem(tmp_path):
    write_notebook(tmp_path / "grace.ipynb")
    (tmp_path / "alan.py").write_text("x = 1\n", encoding="utf-8")
    found = discover([tmp_path / "grace.ipynb", tmp_path / "alan.py"])
    assert described(found) == [("alan", "alan.py", "python"), ("grace", "grace.ipynb", "notebook")]


def test_an_nbgrader_tree_names_each_student_after_their_student_folder(tmp_path):
    submitted = tmp_path / "submitted"
    write_notebook(submitted / "linus" / COURSE.assignment / FIRST_NOTEBOOK)
    write_notebook(submitted / "barbara" / COURSE.assignment / FIRST_NOTEBOOK)
    found = discover([submitted])
    assert [(e.student, e.kind) for e in found] == [("barbara", "lessons"), ("linus", "lessons")]
    assert found[0].path == str(submitted / "barbara" / COURSE.assignment)


def test_a_class_folder_holding_submitted_is_searched_through(tmp_path):
    write_notebook(tmp_path / "submitted" / "ada" / COURSE.assignment / FIRST_NOTEBOOK)
    assert [e.student for e in discover([tmp_path])] == ["ada"]


def test_a_folder_of_many_mixes_layouts_and_skips_hidden_and_other_files(tmp_path):
    write_notebook(tmp_path / "ada" / FIRST_NOTEBOOK)
    write_notebook(tmp_path / "grace.ipynb")
    (tmp_path / "alan.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a submission", encoding="utf-8")
    write_notebook(tmp_path / ".ipynb_checkpoints" / "grace-checkpoint.ipynb")
    found = discover([tmp_path])
    assert described(found) == [
        ("ada", "ada", "lessons"),
        ("alan", "alan.py", "python"),
        ("grace", "grace.ipynb", "notebook"),
    ]


def test_a_missing_path_is_a_usage_error_naming_it(tmp_path):
    with pytest.raises(UsageError, match="nowhere"):
        discover([tmp_path / "nowhere"])


def test_a_folder_with_nothing_to_grade_is_a_usage_error(tmp_path):
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    with pytest.raises(UsageError, match="nothing to grade"):
        discover([tmp_path])


def test_a_file_that_is_not_a_notebook_or_python_is_a_usage_error(tmp_path):
    (tmp_path / "essay.docx").write_bytes(b"PK")
    with pytest.raises(UsageError, match=r"essay\.docx"):
        discover([tmp_path / "essay.docx"])


def test_two_submissions_with_one_student_id_are_a_usage_error_naming_both(tmp_path):
    write_notebook(tmp_path / "a" / "ada.ipynb")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "ada.py").write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(UsageError, match="'ada'") as caught:
        discover([tmp_path / "a", tmp_path / "b"])
    assert "ada.ipynb" in str(caught.value)
    assert "ada.py" in str(caught.value)


def test_a_students_folder_that_is_a_link_is_found_refused_and_named_after_the_link(tmp_path):
    write_notebook(tmp_path / "bob" / FIRST_NOTEBOOK)
    os.symlink("bob", tmp_path / "ada")
    found = {entry.student: entry for entry in discover([tmp_path])}
    assert found["ada"].refused.startswith("ada is a link")
    assert found["bob"].refused == ""


def test_a_linked_notebook_or_python_file_in_a_class_folder_is_refused(tmp_path):
    write_notebook(tmp_path / "elsewhere" / "x.ipynb")
    os.symlink(tmp_path / "elsewhere" / "x.ipynb", tmp_path / "grace.ipynb")
    os.symlink(tmp_path / "elsewhere" / "x.ipynb", tmp_path / "alan.py")
    os.symlink(tmp_path / "elsewhere" / "x.ipynb", tmp_path / "notes.txt")  # not a submission
    found = {entry.student: entry for entry in discover([tmp_path])}
    assert found["grace"].kind == "notebook" and "grace.ipynb is a link" in found["grace"].refused
    assert found["alan"].kind == "python" and "alan.py is a link" in found["alan"].refused
    assert "notes" not in found


def test_a_lessons_folder_holding_a_linked_notebook_is_still_the_students(tmp_path):
    write_notebook(tmp_path / "solution.ipynb")
    (tmp_path / "ada").mkdir()
    os.symlink(tmp_path / "solution.ipynb", tmp_path / "ada" / FIRST_NOTEBOOK)
    [found] = discover([tmp_path / "ada"])
    assert (found.student, found.kind, found.refused) == ("ada", "lessons", "")


def test_a_linked_assignment_folder_in_an_nbgrader_tree_is_refused(tmp_path):
    submitted = tmp_path / "submitted"
    write_notebook(submitted / "bob" / COURSE.assignment / FIRST_NOTEBOOK)
    (submitted / "ada").mkdir()
    os.symlink(f"../bob/{COURSE.assignment}", submitted / "ada" / COURSE.assignment)
    found = {entry.student: entry for entry in discover([submitted])}
    assert found["ada"].refused.startswith(f"{COURSE.assignment} is a link")
    assert found["bob"].refused == ""


def test_a_link_given_on_the_command_line_is_followed_to_a_class_but_not_to_one_student(
    tmp_path,
):
    write_notebook(tmp_path / "class" / "ada" / FIRST_NOTEBOOK)
    os.symlink(tmp_path / "class", tmp_path / "class-link")
    os.symlink(tmp_path / "class" / "ada", tmp_path / "ada-link")
    assert [(e.student, e.refused) for e in discover([tmp_path / "class-link"])] == [("ada", "")]
    [linked] = discover([tmp_path / "ada-link"])
    assert linked.student == "ada-link" and "is a link" in linked.refused


def test_a_class_folder_nested_without_end_is_searched_to_a_depth_not_to_a_crash(tmp_path):
    deep = tmp_path
    for _ in range(300):
        deep = deep / "d"
    write_notebook(deep / "lost.ipynb")
    write_notebook(tmp_path / "ada.ipynb")
    assert [entry.student for entry in discover([tmp_path])] == ["ada"]
