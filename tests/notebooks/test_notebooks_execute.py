"""Every notebook runs top to bottom in a fresh kernel, as a student would run it.

Solutions pass every visible check; lessons fail only in their checks, each saying the exercise
is not finished yet. Notebooks run in a temporary copy of their folder (the kernel's working
directory, where the setup cell loads the earlier steps), so no output is written to the repo.
"""

import shutil

import nbformat
import pytest
from nbclient import NotebookClient

from course.assemble import load_course
from tooling.paths import LESSONS_DIR, SOLUTIONS_DIR

ASSIGNMENT = load_course().assignment
NOTEBOOKS = [step.notebook for step in load_course().steps]
CELL_TIMEOUT_SECONDS = 60
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def execute_copy(folder, notebook_name, tmp_path):
    """Run a notebook from a temporary copy of `folder` and return it with its outputs."""
    work = tmp_path / folder.name
    shutil.copytree(folder, work, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    path = work / notebook_name
    assert path.is_file(), f"{folder.name}/{notebook_name} is missing"
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_SECONDS,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(work)}},
    )
    client.execute()
    return notebook


def code_cells(notebook, suffix=""):
    """Return the notebook's code cells whose id ends with `suffix`."""
    return [c for c in notebook.cells if c.cell_type == "code" and c.id.endswith(suffix)]


def error_text(cell):
    """Return the text of a cell's error outputs: name, message and rendered traceback."""
    errors = [o for o in cell.outputs if o.output_type == "error"]
    return "\n".join(f"{o.ename}: {o.evalue}\n" + "\n".join(o.traceback) for o in errors)


def printed_text(cell):
    """Return everything a cell printed or displayed as plain text."""
    parts = [o.get("text", "") for o in cell.outputs if o.output_type == "stream"]
    parts += [o.get("data", {}).get("text/plain", "") for o in cell.outputs if "data" in o]
    return "".join(parts)


def assert_widgets_render(notebook):
    """Assert the notebook has widget cells and each displays a widget view."""
    widget_cells = code_cells(notebook, "-widget")
    for cell in widget_cells:
        kinds = {kind for o in cell.outputs for kind in o.get("data", {})}
        assert WIDGET_VIEW in kinds, f"widget cell {cell.id} displayed no widget: {kinds}"


@pytest.fixture(scope="module")
def solutions_folder():
    """The folder of solution notebooks of the lesson."""
    return SOLUTIONS_DIR / ASSIGNMENT


@pytest.fixture(scope="module")
def lessons_folder():
    """The folder of generated lesson notebooks."""
    return LESSONS_DIR / ASSIGNMENT


@pytest.mark.parametrize("notebook_name", NOTEBOOKS)
def test_solution_notebook_runs_without_errors_and_passes_its_checks(
    notebook_name, solutions_folder, tmp_path
):
    notebook = execute_copy(solutions_folder, notebook_name, tmp_path)
    failed = {c.id: error_text(c) for c in code_cells(notebook) if error_text(c)}
    assert not failed, f"cells raised in the solution {notebook_name}: {failed}"
    checks = code_cells(notebook, "-check")
    assert checks, f"{notebook_name} has no visible check cell"
    for cell in checks:
        text = printed_text(cell)
        assert any(line.startswith("✓") for line in text.splitlines()), (
            f"check {cell.id} printed no ✓ line: {text!r}"
        )
        assert "✗" not in text, f"check {cell.id} reported a miss: {text!r}"
    assert_widgets_render(notebook)


@pytest.mark.parametrize("notebook_name", NOTEBOOKS)
def test_lesson_notebook_fails_only_in_its_checks_saying_not_finished_yet(
    notebook_name, lessons_folder, tmp_path
):
    notebook = execute_copy(lessons_folder, notebook_name, tmp_path)
    failed = {c.id: error_text(c) for c in code_cells(notebook) if error_text(c)}
    outside_checks = {i: text for i, text in failed.items() if not i.endswith("-check")}
    assert not outside_checks, f"cells other than checks raised: {outside_checks}"
    assert failed, f"no check in the lesson {notebook_name} reported the unfinished exercise"
    for cell_id, text in failed.items():
        assert "not finished yet" in text, f"check {cell_id} failed another way: {text}"
    assert_widgets_render(notebook)
