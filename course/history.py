"""What each kernel last checked, kept beside the notebooks, to catch work that was not saved.

Every notebook has a kernel of its own, and later notebooks read the earlier ones from disk. A
check cell writes down the source of the function it checked and whether it passed; the setup
cell of a later notebook compares that with the saved file, and so can say "step 4 passed its
check, but the saved file holds another version: save it". The record is only ever advice for
the student: what carries forward, and what is graded, is always the saved notebook.
"""

import contextlib
import inspect
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from course.manifest import Step
from course.run import RunnableCell

HISTORY_FILE = ".check-history.json"


def kernel_source(function: Callable[..., object]) -> str | None:
    """Return the source the kernel ran for `function`, or None when Python cannot tell."""
    try:
        return inspect.getsource(function)
    except (OSError, TypeError):
        return None


def normalized(source: str) -> str:
    """Return `source` without trailing spaces or blank lines, for comparing two copies."""
    lines = [line.rstrip() for line in source.splitlines()]
    return "\n".join(line for line in lines if line)


def saved_holds(source: str, cells: Iterable[RunnableCell]) -> bool:
    """Return True when one of the saved cells holds `source` (a function as the kernel ran it)."""
    wanted = normalized(source)
    return any(wanted in normalized(cell.source) for cell in cells)


def read_history(folder: str | Path = ".") -> dict[str, Any]:
    """Return {function name: its last check} from the folder's history, {} when there is none."""
    try:
        data = json.loads((Path(folder) / HISTORY_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def record_check(name: str, source: str, passed: bool, folder: str | Path = ".") -> None:
    """Write down that `name`, as `source`, was checked and whether it passed; never raise.

    A folder the student cannot write to only loses this advice, so errors are ignored.
    """
    history = read_history(folder)
    history[name] = {"source": source, "passed": bool(passed), "at": time.strftime("%H:%M")}
    target = Path(folder) / HISTORY_FILE
    with contextlib.suppress(OSError):
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".check-history-")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(history, file, ensure_ascii=False, indent=1)
            os.replace(temporary, target)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def unsaved_note(
    name: str, step: Step, cells: Iterable[RunnableCell], folder: str | Path = "."
) -> str:
    """Return a sentence when the last check of `name` ran code the saved notebook lacks, or "".

    `cells` are the cells the saved notebook carries forward.
    """
    entry = read_history(folder).get(name)
    if not isinstance(entry, dict) or not isinstance(entry.get("source"), str):
        return ""
    if saved_holds(entry["source"], cells):
        return ""
    outcome = "passed" if entry.get("passed") else "did not pass"
    return (
        f"The check of `{name}` {outcome} at {entry.get('at', '?')} on a version that "
        f"{step.notebook} does not hold as saved: that notebook has unsaved changes. Open it, "
        "save it (File → Save Notebook), then run this cell again."
    )
