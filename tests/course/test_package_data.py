"""Everything the course reads at run time ships with it: `pip install .` works like `-e .`."""

import tomllib
from pathlib import Path

from course.tools import RECORDS_DIR

pytestmark = []

REPO = Path(__file__).resolve().parents[2]


def data_files(pyproject):
    """Return the files that pyproject's package-data declares for the course package."""
    settings = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    patterns = settings["tool"]["setuptools"]["package-data"]["course"]
    return {path for pattern in patterns for path in (pyproject.parent / "course").glob(pattern)}


def test_every_data_file_of_the_course_is_declared_package_data():
    course = REPO / "course"
    needed = {
        path
        for path in course.rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    }
    assert any(path.parent.name == "records" for path in needed), "the records moved again?"
    assert needed <= data_files(REPO / "pyproject.toml")
    # The students' own pyproject (tooling/student) installs the same course package.
    student = REPO / "tooling" / "student" / "pyproject.toml"
    settings = tomllib.loads(student.read_text(encoding="utf-8"))
    declared = settings["tool"]["setuptools"]["package-data"]["course"]
    assert {p for pattern in declared for p in course.glob(pattern)} >= needed


def test_the_example_tools_read_their_records_from_inside_the_package():
    assert RECORDS_DIR.resolve().is_relative_to((REPO / "course").resolve())
    assert sorted(RECORDS_DIR.glob("*.json"))
