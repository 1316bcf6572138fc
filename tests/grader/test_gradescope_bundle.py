"""`python -m grader gradescope-bundle` builds a zip Gradescope accepts, with only grading code."""

import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader import gradescope

PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    path = tmp_path_factory.mktemp("bundle") / "autograder.zip"
    completed = subprocess.run(
        [sys.executable, "-m", "grader", "gradescope-bundle", str(path)],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return path


def names_in(bundle):
    with zipfile.ZipFile(bundle) as archive:
        return archive.namelist()


def test_setup_and_run_autograder_sit_at_the_top_of_the_zip_and_are_executable(bundle):
    with zipfile.ZipFile(bundle) as archive:
        for name in ("setup.sh", "run_autograder"):
            mode = archive.getinfo(name).external_attr >> 16
            assert stat.S_ISREG(mode), name
            assert mode & stat.S_IXUSR, name
            assert archive.read(name).startswith(b"#!/usr/bin/env bash\n"), name


def test_the_bundle_holds_the_grader_its_hidden_tests_and_the_course_manifest(bundle):
    names = set(names_in(bundle))
    assert {"requirements.txt", "course/steps.toml", "course/assemble.py", "grader/job.py"} <= names
    hidden = {n for n in names if n.startswith("grader/hidden/test_")}
    expected = {
        p.relative_to(PROJECT).as_posix() for p in (PROJECT / "grader" / "hidden").glob("test_*.py")
    }
    assert hidden == expected
    assert "grader/hidden/conftest.py" in names


def test_the_bundle_leaves_out_solutions_lessons_fixtures_and_tests(bundle):
    for name in names_in(bundle):
        top = name.split("/", 1)[0]
        assert top not in {"solutions", "lessons", "fixtures", "tests", "tooling"}, name
        assert "__pycache__" not in name
        assert not name.startswith("course/widgets/") and not name.startswith("course/checks/")


def test_requirements_pin_pytest_and_pyseccomp_as_the_project_does(bundle):
    with zipfile.ZipFile(bundle) as archive:
        lines = archive.read("requirements.txt").decode("utf-8").split()
    project = (PROJECT / "requirements.txt").read_text(encoding="utf-8").split()
    assert sorted(line.split("==")[0] for line in lines) == ["pyseccomp", "pytest"]
    assert all(line in project for line in lines)


def test_building_twice_gives_the_same_zip(bundle, tmp_path):
    again = gradescope.build_bundle(tmp_path / "again.zip")
    assert again.read_bytes() == bundle.read_bytes()


def test_a_folder_of_lesson_notebooks_is_found_before_a_stray_python_file(tmp_path):
    lessons = tmp_path / "upload" / "bounded_results"
    lessons.mkdir(parents=True)
    (lessons / "01-the-envelope.ipynb").write_text("{}", encoding="utf-8")
    (tmp_path / "scratch.py").write_text("x = 1\n", encoding="utf-8")
    found = gradescope.find_student_work(tmp_path)
    assert (found.path, found.kind) == (lessons, "lessons")


def test_a_single_python_file_is_found_and_hidden_folders_are_ignored(tmp_path):
    (tmp_path / "__MACOSX").mkdir()
    (tmp_path / "__MACOSX" / "answer.ipynb").write_text("{}", encoding="utf-8")
    (tmp_path / "answer.py").write_text("x = 1\n", encoding="utf-8")
    found = gradescope.find_student_work(tmp_path)
    assert (found.path, found.kind) == (tmp_path / "answer.py", "python")


def test_an_empty_submission_finds_nothing(tmp_path):
    assert gradescope.find_student_work(tmp_path) is None
