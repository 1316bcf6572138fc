"""Every notebook runs top to bottom in a fresh kernel, as Run All runs it, and never stops.

Solutions pass every visible check and write nothing on stderr. Lessons raise nowhere either:
each check says on stderr that its exercise is not finished yet, and the explorers after it
still render.
"""

import pytest
from notebook_runs import (
    LESSONS,
    NOTEBOOKS,
    SOLUTIONS,
    code_cells,
    errors,
    run_copy,
    shows_widget,
    stream,
)

pytestmark = [pytest.mark.kernel, pytest.mark.slow]


def assert_widgets_render(notebook):
    """Assert every widget cell displays a widget."""
    for cell in code_cells(notebook, "-widget"):
        assert shows_widget(cell), f"widget cell {cell.id} displayed no widget: {cell.outputs}"


@pytest.mark.parametrize("notebook_name", NOTEBOOKS)
def test_solution_notebook_runs_without_errors_and_passes_its_checks(notebook_name, tmp_path):
    notebook = run_copy(SOLUTIONS, notebook_name, tmp_path)
    for cell in code_cells(notebook):
        assert stream(cell, "stderr") == "", f"{cell.id} wrote to stderr"
    checks = code_cells(notebook, "-check") + code_cells(notebook, "check-saved-work")
    assert checks, f"{notebook_name} has no visible check cell"
    for cell in checks:
        text = stream(cell, "stdout")
        assert any(line.startswith("✓") for line in text.splitlines()), (cell.id, text)
        assert "✗" not in text, (cell.id, text)
    assert_widgets_render(notebook)


@pytest.mark.parametrize("notebook_name", NOTEBOOKS)
def test_lesson_notebook_runs_to_the_end_and_its_checks_say_not_finished_yet(
    notebook_name, tmp_path
):
    # allow_errors=False: a cell that raised would stop the run, as it stops Run All.
    notebook = run_copy(LESSONS, notebook_name, tmp_path)
    for cell in code_cells(notebook):
        assert errors(cell) == [], cell.id
    for cell in code_cells(notebook, "-check"):
        failure = stream(cell, "stderr")
        assert failure.startswith("✗ "), (cell.id, failure)
        assert "not finished yet" in failure, (cell.id, failure)
        assert "Traceback" not in failure
    assert_widgets_render(notebook)
