"""The load step reads submissions into code units, and turns unreadable ones into a reason."""

import json
import os
from pathlib import Path

from course.manifest import load_course
from grader.intake.discover import Found
from grader.intake.load import load

pytestmark = []

COURSE = load_course()


def exercise_cell(cell_id, source):
    return {
        "cell_type": "code",
        "id": cell_id,
        "metadata": {"nbgrader": {"grade_id": cell_id, "solution": True}},
        "source": source,
        "outputs": [],
        "execution_count": None,
    }


def write_notebook(path, cells):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4}), encoding="utf-8")


def defining(step, cell_id):
    """The source of an exercise cell that defines its function."""
    name = step.defines[step.exercises.index(cell_id)]
    return f"def {name}(*args):\n    return {step.number}\n"


def write_lesson(folder):
    for step in COURSE.steps:
        cells = [exercise_cell(c, defining(step, c)) for c in step.exercises]
        write_notebook(Path(folder) / step.notebook, cells)


def test_a_lessons_folder_gives_every_exercise_cell_in_lesson_order(tmp_path):
    write_lesson(tmp_path)
    submission = load(Found("ada", tmp_path, "lessons"))
    expected = [defining(step, cell_id) for step in COURSE.steps for cell_id in step.exercises]
    assert [unit.source for unit in submission.units] == expected
    assert submission.error is None
    assert submission.problems == ()


def test_a_deleted_exercise_cell_is_a_problem_not_an_error(tmp_path):
    write_lesson(tmp_path)
    first = COURSE.steps[0]
    write_notebook(tmp_path / first.notebook, [])
    submission = load(Found("ada", tmp_path, "lessons"))
    assert submission.error is None
    assert any(first.exercises[0] in problem for problem in submission.problems)
    assert len(submission.units) == sum(len(s.exercises) for s in COURSE.steps) - 1


def test_a_lessons_folder_with_nothing_readable_gets_an_error(tmp_path):
    (tmp_path / COURSE.steps[0].notebook).write_text("{not json", encoding="utf-8")
    submission = load(Found("ada", tmp_path, "lessons"))
    assert submission.units == ()
    assert "could not be read" in submission.error


def test_a_single_notebook_gives_the_exercise_cells_it_holds(tmp_path):
    step = COURSE.steps[-1]
    write_notebook(tmp_path / "grace.ipynb", [exercise_cell(step.exercises[0], "x = 1\n")])
    submission = load(Found("grace", tmp_path / "grace.ipynb", "notebook"))
    assert [unit.source for unit in submission.units] == ["x = 1\n"]
    assert step.notebook in submission.units[0].filename


def test_a_malformed_notebook_is_that_students_error(tmp_path):
    (tmp_path / "grace.ipynb").write_text('{"cells": [', encoding="utf-8")
    submission = load(Found("grace", tmp_path / "grace.ipynb", "notebook"))
    assert submission.units == ()
    assert "grace.ipynb could not be read" in submission.error


def test_a_python_file_is_one_unit_named_after_the_file(tmp_path):
    path = tmp_path / "alan.py"
    path.write_text("def invoke_tool(request, tools, *, max_result_bytes=4096):\n    pass\n")
    submission = load(Found("alan", path, "python"))
    assert [(u.label, u.filename) for u in submission.units] == [("alan.py", "alan.py")]
    assert submission.units[0].source.startswith("def invoke_tool")


def test_binary_empty_and_non_utf8_python_files_are_errors_with_a_reason(tmp_path):
    cases = {"binary.py": b"\x00\x01\x02", "empty.py": b"  \n", "latin.py": b"x = '\xe9'\n"}
    reasons = {}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        submission = load(Found(name[:-3], tmp_path / name, "python"))
        assert submission.units == ()
        reasons[name] = submission.error
    assert "not a text file" in reasons["binary.py"]
    assert "empty" in reasons["empty.py"]
    assert "UTF-8" in reasons["latin.py"]


def test_an_own_cell_and_an_unfinished_step_are_carried_and_noted_as_in_the_lessons(tmp_path):
    write_lesson(tmp_path)
    step = COURSE.steps[2]
    own = dict(exercise_cell("scratch", "LIMIT = 3\n"), metadata={})
    stub = "def encode_json(value):\n    raise NotImplementedError()\n"
    write_notebook(tmp_path / step.notebook, [exercise_cell("encode-json", stub), own])
    submission = load(Found("ada", tmp_path, "lessons"))
    assert [u.source for u in submission.units if step.notebook in u.filename] == [
        stub,
        "LIMIT = 3\n",
    ]
    assert submission.problems == (
        "Step 3 (03-json-vocabulary.ipynb): `encode_json` is not finished yet: cell "
        "'encode-json' still raises NotImplementedError.",
    )


def test_notebooks_that_are_links_are_never_read_and_the_student_is_told_why(tmp_path):
    solutions = tmp_path / "solutions"
    write_lesson(solutions)
    ada = tmp_path / "ada"
    ada.mkdir()
    for step in COURSE.steps:
        os.symlink(solutions / step.notebook, ada / step.notebook)
    submission = load(Found("ada", str(ada), "lessons"))
    assert submission.units == ()
    assert f"{COURSE.steps[0].notebook} is a link to another file" in submission.error
    assert "hand in the file itself" in submission.error


def test_one_linked_step_is_that_steps_problem_and_the_rest_is_graded(tmp_path):
    write_lesson(tmp_path / "ada")
    step = COURSE.steps[1]
    (tmp_path / "ada" / step.notebook).unlink()
    os.mkfifo(tmp_path / "ada" / step.notebook)
    submission = load(Found("ada", str(tmp_path / "ada"), "lessons"))
    assert submission.error is None
    assert not any(step.notebook in unit.filename for unit in submission.units)
    assert any(f"{step.notebook} is a named pipe" in p for p in submission.problems)


def test_a_refused_found_is_not_read_at_all(tmp_path):
    found = Found("ada", str(tmp_path / "nowhere"), "lessons", str(tmp_path), "ada is a link.")
    assert load(found).error == "ada is a link."


def test_a_linked_python_file_is_refused(tmp_path):
    (tmp_path / "reference.py").write_text("def invoke_tool(*a, **k):\n    pass\n")
    os.symlink(tmp_path / "reference.py", tmp_path / "alan.py")
    submission = load(Found("alan", str(tmp_path / "alan.py"), "python"))
    assert submission.units == () and "alan.py is a link" in submission.error


def test_notebooks_built_to_exhaust_the_parser_are_the_students_error_not_the_graders(tmp_path):
    cases = {
        "nested.ipynb": b"[" * 200_000 + b"]" * 200_000,
        "containers.ipynb": b'{"cells": [' + b"[]," * 300_000 + b"[]]}",
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        submission = load(Found(name[:-6], str(tmp_path / name), "notebook"))
        assert submission.failure is None, name
        assert name in submission.error, name
