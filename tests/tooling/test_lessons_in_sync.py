"""The committed lessons are exactly what nbgrader generates from the solutions."""

import json

import pytest

from tooling import lessons

pytestmark = [pytest.mark.nbgrader]


def test_check_command_finds_the_committed_lessons_in_sync(capsys):
    exit_code = lessons.main(["--check"])
    captured = capsys.readouterr()
    assert exit_code == 0, captured.err
    assert "in sync" in captured.out


def test_check_names_an_edited_and_a_deleted_lesson(tmp_path):
    # Start from a fresh generation, so the test does not depend on the committed lessons.
    copied = lessons.write_lessons(lessons_dir=tmp_path / "lessons")
    notebooks = sorted(copied.glob("*.ipynb"))
    edited, deleted = notebooks[0], notebooks[-1]
    notebook = json.loads(edited.read_text(encoding="utf-8"))
    notebook["cells"][0]["source"] = "An edit made to the lesson instead of the solution."
    edited.write_text(json.dumps(notebook, indent=1), encoding="utf-8")
    deleted.unlink()

    problems = lessons.check_lessons(lessons_dir=tmp_path / "lessons")

    assert len(problems) == 2, problems
    assert any(edited.name in p and "out of sync" in p for p in problems), problems
    assert any(deleted.name in p and "missing" in p for p in problems), problems
