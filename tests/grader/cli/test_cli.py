"""`python -m grader` grades submissions end to end, and explains usage errors in one line."""

import json
import os
import shutil
from pathlib import Path

import pytest
from grader_cli import read_grades, run_grader

from grader.sandbox.containment import containment_available

pytestmark = []

PROJECT = Path(__file__).resolve().parents[3]
REFERENCE = PROJECT / "fixtures" / "submissions" / "correct" / "reference.py"


@pytest.fixture(scope="module")
def class_folder(tmp_path_factory):
    """A small class: a correct .py, an unreadable .py, a broken notebook, a syntax error."""
    folder = tmp_path_factory.mktemp("class")
    shutil.copy(REFERENCE, folder / "ada.py")
    (folder / "bin.py").write_bytes(b"\x00\x01binary")
    (folder / "broken.ipynb").write_text('{"cells": [', encoding="utf-8")
    (folder / "typo.py").write_text("def invoke_tool(request, tools:\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def graded_twice(class_folder, tmp_path_factory):
    outs = [tmp_path_factory.mktemp("out1"), tmp_path_factory.mktemp("out2")]
    runs = [run_grader("grade", class_folder, "--out", out, "--jobs", "2") for out in outs]
    return runs, outs


def assert_one_line_usage_error(completed):
    assert completed.returncode == 2
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1, completed.stderr
    assert lines[0].startswith("grader: error: ")


@pytest.mark.bwrap
def test_a_missing_path_is_a_one_line_usage_error(tmp_path):
    completed = run_grader("grade", tmp_path / "nowhere", "--out", tmp_path / "out")
    assert_one_line_usage_error(completed)
    assert "nowhere" in completed.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.bwrap
def test_grade_without_submissions_is_a_one_line_usage_error(tmp_path):
    assert_one_line_usage_error(run_grader("grade", "--out", tmp_path / "out"))


@pytest.mark.bwrap
def test_a_folder_with_nothing_to_grade_is_a_one_line_usage_error(tmp_path):
    (tmp_path / "readme.txt").write_text("hello", encoding="utf-8")
    assert_one_line_usage_error(run_grader("grade", tmp_path, "--out", tmp_path / "out"))


@pytest.mark.bwrap
def test_duplicate_student_ids_are_a_one_line_usage_error(tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "ada.py").write_text("x = 1\n", encoding="utf-8")
    completed = run_grader("grade", tmp_path / "a", tmp_path / "b", "--out", tmp_path / "out")
    assert_one_line_usage_error(completed)
    assert "'ada'" in completed.stderr


@pytest.mark.bwrap
def test_grading_exits_zero_whatever_the_students_scored(graded_twice):
    runs, _ = graded_twice
    assert [run.returncode for run in runs] == [0, 0], runs[0].stderr


@pytest.mark.bwrap
def test_every_student_gets_a_row_and_reports(graded_twice):
    _, (out, _) = graded_twice
    grades = read_grades(out)
    assert sorted(grades) == ["ada", "bin", "broken", "typo"]
    assert grades["ada"]["score"] == grades["ada"]["max_score"]
    for student in grades:
        for name in ("results.json", "feedback.md", "feedback.html"):
            assert (out / student / name).is_file()


@pytest.mark.bwrap
def test_an_unreadable_submission_is_that_students_result_not_a_crash(graded_twice):
    _, (out, _) = graded_twice
    grades = read_grades(out)
    assert grades["bin"]["status"] == "unreadable"
    assert grades["broken"]["status"] == "unreadable"
    assert float(grades["typo"]["score"]) == 0
    results = json.loads((out / "bin" / "results.json").read_text(encoding="utf-8"))
    assert "not a text file" in results["output"]
    assert {test["status"] for test in results["tests"]} == {"failed"}


@pytest.mark.bwrap
def test_the_summary_table_lists_every_student(graded_twice):
    runs, _ = graded_twice
    table = runs[0].stdout
    assert "unicode_boundary" in table
    for student in ("ada", "bin", "broken", "typo"):
        assert f"\n{student} " in table


@pytest.mark.bwrap
def test_grading_the_same_submissions_twice_gives_byte_identical_files(graded_twice):
    _, (first, second) = graded_twice
    names = ["grades.csv"] + [f"{s}/results.json" for s in ("ada", "bin", "broken", "typo")]
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_no_arguments_grades_the_sample_class_into_grades(tmp_path):
    completed = run_grader(cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    grades = read_grades(tmp_path / "grades")
    assert sorted(grades) == ["ada", "alan", "barbara", "grace", "linus"]
    assert grades["ada"]["score"] == grades["ada"]["max_score"]
    assert float(grades["alan"]["score"]) < float(grades["grace"]["score"])
    assert "5/5" in completed.stderr


@pytest.mark.bwrap
def test_the_summary_says_which_isolation_was_in_force(graded_twice):
    runs, _ = graded_twice
    expected = "Isolation: bubblewrap" if containment_available() else "Isolation: a separate"
    assert expected in runs[0].stdout
    line = next(line for line in runs[0].stdout.splitlines() if line.startswith("Isolation:"))
    assert "seccomp (no keyrings" in line and "a guard refusing" in line
    assert ("a user id of its own for each submission" in line) == (os.geteuid() == 0)


def test_timeout_scales_the_per_test_limit_with_it(monkeypatch, tmp_path):
    from grader import cli

    given = {}
    monkeypatch.setattr(cli, "run_grade", lambda *args, **kwargs: given.update(kwargs) or 0)
    assert cli.main(["grade", str(tmp_path), "--out", str(tmp_path / "out"), "--timeout", "5"]) == 0
    assert (given["limits"].timeout, given["limits"].test_timeout) == (5.0, 1.0)
    cli.main(["grade", str(tmp_path), "--out", str(tmp_path / "out")])
    assert (given["limits"].timeout, given["limits"].test_timeout) == (10.0, 2.0)


def test_regrade_takes_only_statuses_a_result_can_have(tmp_path, capsys):
    from grader import cli

    out = str(tmp_path / "out")
    assert cli.main(["grade", str(tmp_path), "--out", out, "--regrade", "slow"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("grader: error: argument --regrade: invalid choice: 'slow'")
    assert len(error.strip().splitlines()) == 1


COPIED_PAIR = PROJECT / "fixtures" / "classes" / "copied-pair"


@pytest.fixture(scope="module")
def graded_with_similarity(tmp_path_factory):
    """The copied-pair class graded without --similarity, then with it."""
    outs = [tmp_path_factory.mktemp("plain"), tmp_path_factory.mktemp("similar")]
    runs = [
        run_grader("grade", COPIED_PAIR, "--out", outs[0], "--jobs", "2"),
        run_grader("grade", COPIED_PAIR, "--out", outs[1], "--jobs", "2", "--similarity"),
    ]
    return runs, outs


@pytest.mark.bwrap
def test_similarity_changes_no_grade_and_no_students_file(graded_with_similarity):
    runs, (plain, similar) = graded_with_similarity
    assert [run.returncode for run in runs] == [0, 0], runs[1].stderr
    students = ("ana", "ben", "cleo", "dev", "eve", "finn")
    names = ["grades.csv", "item-analysis.csv"] + [
        f"{student}/{name}"
        for student in students
        for name in ("results.json", "feedback.md", "feedback.html")
    ]
    for name in names:
        assert (plain / name).read_bytes() == (similar / name).read_bytes(), name
    assert not (plain / "similarity.csv").exists()


@pytest.mark.bwrap
def test_similarity_lists_the_copied_pair_first_and_never_the_starter_only_pair(
    graded_with_similarity,
):
    runs, (_, similar) = graded_with_similarity
    rows = (similar / "similarity.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0] == "student_a,student_b,score,share_a,share_b"
    assert rows[1].startswith("ana,ben,")
    assert not any(row.startswith("cleo,dev,") for row in rows)
    page = (similar / "report.html").read_text(encoding="utf-8")
    assert "a reason to look at a pair, not a verdict" in page
    assert "<a href='ana/feedback.html'>ana</a> and <a href='ben/feedback.html'>ben</a>" in page
    assert "A reason to look, not a verdict." in runs[1].stdout


def test_similarity_needs_the_whole_class_and_a_score_up_to_1(tmp_path, capsys):
    from grader import cli

    out = str(tmp_path / "out")
    assert cli.main(["grade", str(tmp_path), "--out", out, "--similarity", "2"]) == 2
    assert "must be above 0 and at most 1" in capsys.readouterr().err
    assert cli.main(["grade", str(tmp_path), "--out", out, "--similarity", "--shard", "1/2"]) == 2
    assert "--similarity compares the whole class" in capsys.readouterr().err
