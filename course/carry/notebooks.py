"""Reading a saved notebook: its cells, their ids and sources, and which cells are the student's.

Notebooks are read as the JSON they are saved as, with the standard library only, because this
runs beside student code in the grader's worker too. A file that is not a notebook raises
AssemblyError with a sentence a student can act on.
"""

import json
import time
from pathlib import Path
from typing import Any

# A notebook cell as its JSON holds it: "cell_type", "id", "metadata", "source"...
NotebookCell = dict[str, Any]
READ_ATTEMPTS = 3  # reads of a file found a moment ago that answer "missing" (see _read_bytes)
READ_PAUSE_SECONDS = 0.2


class AssemblyError(Exception):
    """A problem with a student's notebooks, explained in a student's words."""

    def _render_traceback_(self) -> list[str]:
        # IPython calls this instead of printing a traceback of the course's internals.
        return [f"⚠ {self}"]


def read_notebook_cells(path: str | Path) -> list[NotebookCell]:
    """Return the cells of the notebook at `path`; raise AssemblyError if it cannot be read."""
    try:
        data = _read_bytes(Path(path))
    except OSError as error:
        raise _unreadable(Path(path).name, error) from None
    return parse_notebook_cells(data, Path(path).name)


def _read_bytes(path: Path) -> bytes:
    """Return the file's bytes, reading again briefly while it answers that it is missing.

    In the browser the kernel reads through JupyterLite's drive, whose answer for a saved
    notebook was once "missing" for a moment (in CI, step 6 read step 2's notebook so); a file
    that is really gone is still said to be unreadable, after a second or less.
    """
    for attempt in range(1, READ_ATTEMPTS + 1):
        try:
            return path.read_bytes()
        except FileNotFoundError:
            if attempt == READ_ATTEMPTS:
                raise
            time.sleep(READ_PAUSE_SECONDS * attempt)
    raise AssertionError("unreachable: the last attempt returns or raises")


def parse_notebook_cells(data: bytes, name: str) -> list[NotebookCell]:
    """Return the cells of a notebook saved as `data`; raise AssemblyError if it is not one.

    `name` is the notebook's file name, for the message.
    """
    try:
        notebook = json.loads(data.decode("utf-8"))
        cells = notebook["cells"]
    # RecursionError: lists nested thousands deep, which no notebook holds.
    except (UnicodeDecodeError, ValueError, KeyError, TypeError, RecursionError) as error:
        raise _unreadable(name, error) from None
    if not isinstance(cells, list):
        raise AssemblyError(f"{name} has no list of cells, so it is not a notebook.")
    return [cell for cell in cells if isinstance(cell, dict)]


def _unreadable(name: str, error: BaseException) -> AssemblyError:
    return AssemblyError(
        f"{name} could not be read as a notebook ({type(error).__name__}). Open it in "
        "JupyterLab; if it will not open, start again from a fresh copy of the lesson."
    )


def _nbgrader(cell: NotebookCell) -> object:
    """Return the cell's nbgrader metadata as saved (not always a dict in a damaged file)."""
    metadata = cell.get("metadata")
    return metadata.get("nbgrader") if isinstance(metadata, dict) else None


def cell_id_of(cell: NotebookCell) -> Any:
    """Return a notebook cell's stable id: its nbgrader grade_id, else its nbformat id."""
    nbgrader = _nbgrader(cell)
    grade_id = nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None
    return grade_id or cell.get("id")


def is_own_cell(cell: NotebookCell) -> bool:
    """Return True for a code cell that is the student's: one they added, or an editable one.

    The course marks its cells with an nbgrader grade_id; of those, only solution cells are
    the student's to edit (a copy of another step's exercise cell, pasted here, included).
    """
    nbgrader = _nbgrader(cell)
    if cell.get("cell_type") != "code":
        return False
    if not isinstance(nbgrader, dict) or not nbgrader.get("grade_id"):
        return True
    return bool(nbgrader.get("solution"))


def source_of(cell: NotebookCell) -> str:
    """Return a notebook cell's source as one string."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def first_line(source: str, width: int = 40) -> str:
    """Return the first non-blank line of `source`, shortened to `width` characters."""
    line = next((text.strip() for text in source.splitlines() if text.strip()), "")
    return line if len(line) <= width else line[: width - 1] + "…"
