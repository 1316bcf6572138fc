"""The handout holds what a student needs for the lessons, and nothing that gives answers away."""

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from grader.install.requirements import locked_requirements
from grader.paths import LESSONS, PROJECT_ROOT, SOLUTIONS
from tooling import hygiene
from tooling.handout import build_handout
from tooling.paths import assignment_name

pytestmark = []

# Bodies of the reference solution that must never reach a student.
REFERENCE_SNIPPETS = ("copy.deepcopy(arguments)", "isinstance(exc, InvalidInputError)")
FORBIDDEN_FOLDERS = ("grader", "tests", "solutions", "fixtures/submissions")


@pytest.fixture(scope="module")
def handout(tmp_path_factory):
    """Build the handout once into a temporary folder; return the folder and its zip."""
    folder = tmp_path_factory.mktemp("build") / "handout"
    archive = build_handout(folder)
    return folder, archive


def handout_files(folder):
    """Return every file of the handout, relative to its folder, as POSIX paths."""
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def normalized_lines(text):
    """Return the non-blank lines of `text`, stripped, joined by newlines."""
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def solution_bodies():
    """Return the code between the solution markers of every solution notebook, normalized."""
    pattern = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S)
    bodies = []
    for path in sorted((SOLUTIONS / assignment_name()).glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            bodies += [normalized_lines(body) for body in pattern.findall(source)]
    return bodies


def test_handout_holds_every_lesson_the_supplied_code_and_the_records(handout):
    folder, _ = handout
    files = handout_files(folder)
    lessons = sorted((PROJECT_ROOT / "lessons" / assignment_name()).glob("*.ipynb"))
    assert lessons, "there are no generated lessons to hand out"
    for lesson in lessons:
        assert (folder / "lessons" / assignment_name() / lesson.name).read_bytes() == (
            lesson.read_bytes()
        )
    for source in (PROJECT_ROOT / "course").rglob("*"):
        if source.is_file() and "__pycache__" not in source.parts:
            assert source.relative_to(PROJECT_ROOT).as_posix() in files
    records = sorted((PROJECT_ROOT / "course" / "records").glob("*.json"))
    assert records, "the example records are missing"
    for record in records:
        assert f"course/records/{record.name}" in files
    assert {"README.md", "requirements.txt", "pyproject.toml"} <= files


def test_student_requirements_are_the_course_group_at_the_locks_versions_then_the_course(handout):
    folder, _ = handout
    lines = (folder / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert lines == [*locked_requirements("course"), "."]
    for name in ("jupyterlab", "notebook", "ipywidgets", "ipykernel"):
        assert sum(line.startswith(f"{name}==") for line in lines) == 1, name
    assert not any(
        line.startswith(("nbgrader", "pytest", "selenium", "pyseccomp")) for line in lines
    )


def test_student_pyproject_packages_only_the_course(handout):
    folder, _ = handout
    project = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["tool"]["setuptools"]["packages"]["find"]["include"] == ["course*"]


def test_student_readme_says_how_to_install_and_to_save_before_moving_on(handout):
    folder, _ = handout
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert (
        "python3 -m venv .venv && .venv/bin/pip install -r requirements.txt && "
        f".venv/bin/jupyter lab lessons/{assignment_name()}"
    ) in readme
    assert "Save each notebook" in readme
    assert "{assignment}" not in readme


def test_handout_gives_no_solution_away(handout):
    folder, _ = handout
    bodies = solution_bodies()
    assert bodies, "no solution bodies were found to look for"
    for name in handout_files(folder):
        text = (folder / name).read_text(encoding="utf-8", errors="replace")
        assert "### BEGIN SOLUTION" not in text, name
        for snippet in REFERENCE_SNIPPETS:
            assert snippet not in text, f"{name} holds the reference code {snippet!r}"
        flat = normalized_lines(text)
        for body in bodies:
            assert body not in flat, f"{name} holds a solution body:\n{body}"


def test_handout_holds_no_grader_test_or_submission_file(handout):
    folder, _ = handout
    files = handout_files(folder)
    for name in files:
        assert not name.startswith(tuple(f"{f}/" for f in FORBIDDEN_FOLDERS)), name
    hidden = {
        p.read_bytes()
        for top in ("grader", "tests")
        for p in (PROJECT_ROOT / top).rglob("*.py")
        if p.stat().st_size > 0
    }
    for name in files:
        assert (folder / name).read_bytes() not in hidden, f"{name} is a copy of a hidden file"


def test_zip_holds_exactly_the_handout_folder(handout):
    folder, archive = handout
    assert Path(archive) == folder.with_suffix(".zip")
    with zipfile.ZipFile(archive) as opened:
        names = {n for n in opened.namelist() if not n.endswith("/")}
    assert names == handout_files(folder)


def test_student_readme_gives_windows_commands_beside_the_posix_ones(handout):
    folder, _ = handout
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "py -m venv .venv" in readme
    assert ".venv\\Scripts\\pip install -r requirements.txt" in readme
    assert f".venv\\Scripts\\jupyter lab lessons\\{assignment_name()}" in readme
    assert ".venv\\Scripts\\python hand_in.py" in readme


def test_student_readme_says_what_carries_forward_and_how_to_hand_in(handout):
    folder, _ = handout
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "it takes the exercise cells and every code cell you added yourself" in " ".join(
        readme.split()
    )
    assert "Ctrl+S does not save while the cursor is in an explorer's text box" in readme
    for way in ("**nbgrader**", "**Gradescope**", "**A zip file**"):
        assert way in readme


def test_package_my_work_runs_in_the_handout_and_zips_only_the_notebooks(handout, tmp_path):
    folder, _ = handout
    work = tmp_path / "handout"
    shutil.copytree(folder, work)
    (work / "lessons" / assignment_name() / "scratch.txt").write_text("mine", encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, "hand_in.py"],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(work)},
    )
    assert completed.returncode == 0, completed.stderr
    assert (
        "✗ Step 1 (01-the-envelope.ipynb): `make_envelope` is not finished yet" in completed.stdout
    )
    with zipfile.ZipFile(work / f"{assignment_name()}-submission.zip") as archive:
        names = sorted(archive.namelist())
    lessons = sorted((LESSONS / assignment_name()).glob("*.ipynb"))
    assert names == [f"{assignment_name()}/{lesson.name}" for lesson in lessons]
    assert (work / "lessons" / assignment_name() / "hand-in.ipynb").is_file()


def test_the_hand_in_notebook_is_as_clean_as_a_lesson():
    notebook = PROJECT_ROOT / "tooling" / "student" / "hand-in.ipynb"
    assert hygiene.notebook_problems(notebook, hygiene.LESSON_CELL_METADATA) == []
