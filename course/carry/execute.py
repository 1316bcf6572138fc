"""Running the cells that carry forward, as a notebook would, with the course's supplied names.

The setup cell of every notebook runs the earlier steps' cells through `run_cells`, and the
grader's worker runs a submission's cells through it too, beside student code, so this module
uses only the standard library. A cell that fails is said in a sentence, never raised: one
broken cell must not hide the work in the others.
"""

import linecache
from collections.abc import Iterable
from typing import Any, Protocol

from course import supplied

Namespace = dict[str, Any]


class RunnableCell(Protocol):
    """A cell to run: a notebook's exercise cell, or a whole `.py` submission."""

    @property
    def label(self) -> str:
        """How messages name the cell to a student."""

    @property
    def filename(self) -> str:
        """The pseudo file name tracebacks show for the cell."""

    @property
    def source(self) -> str:
        """The cell's Python source."""


def supplied_names() -> Namespace:
    """Return a fresh dict of the names the course supplies to every exercise cell."""
    return {name: getattr(supplied, name) for name in supplied.__all__}


def run_cells(cells: Iterable[RunnableCell], namespace: Namespace) -> tuple[str, ...]:
    """Run cells in `namespace`, as a notebook would; return the problems, if any.

    The supplied names are put in first and applied again after every cell, so a cell that
    redefines them cannot replace the course's copy.
    """
    problems = []
    namespace.update(supplied_names())
    for cell in cells:
        problem = _run_cell(cell, namespace)
        if problem:
            problems.append(problem)
        namespace.update(supplied_names())
    return tuple(problems)


def _run_cell(cell: RunnableCell, namespace: Namespace) -> str | None:
    lines = cell.source.splitlines(keepends=True)
    # Registering the source lets tracebacks show the student's own lines.
    linecache.cache[cell.filename] = (len(cell.source), None, lines, cell.filename)
    where = cell.label
    try:
        code = compile(cell.source, cell.filename, "exec")
    except SyntaxError as error:
        return _syntax_message(where, error, lines)
    try:
        exec(code, namespace)
    except Exception as error:
        return (
            f"{where} stopped with {type(error).__name__} when it ran: {error}. "
            "Run that cell in its notebook to see where, fix it and save."
        )
    return None


def _syntax_message(where: str, error: SyntaxError, lines: list[str]) -> str:
    line = lines[error.lineno - 1].strip() if error.lineno and error.lineno <= len(lines) else ""
    if line.startswith(("%", "!")):
        return (
            f"{where} uses the Jupyter command {line.split()[0]!r} on line {error.lineno}. "
            "Cells that carry forward run as plain Python, in later notebooks and at grading, "
            "where such commands do not exist: delete that line (or the cell) and save."
        )
    return f"{where} has a syntax error on line {error.lineno}: {error.msg}. Fix it and save."
