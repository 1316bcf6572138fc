"""What a kernel ran and checked, against what is saved: to catch work that was not saved.

Every notebook has a kernel of its own, and later notebooks read the earlier ones from disk. A
check cell writes down the source of the function it checked, whether it passed, and a digest of
the step's saved cells at that moment; the setup cell of a later notebook compares that with the
saved file. When the file is as it was at the check and lacks the checked version, the work was
never saved ("save it"); when the file changed since, it was saved and simply not checked again,
and the setup's own check of the saved version says how it fares. The record is only ever advice
for the student: what carries forward, and what is graded, is always the saved notebook.

A kernel also keeps every function it was ever given: rename `call_once` in its cell and run the
cell again, and the old `call_once` is still there, though the cell, the next notebook and the
grader no longer have it. `CellRuns` (started by the setup cell) notes what each cell last ran,
by the cell id JupyterLab sends with each run, so a check can say so instead of judging the old
version.
"""

import contextlib
import hashlib
import inspect
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from course.carry.analysis import defined_names
from course.carry.execute import RunnableCell
from course.manifest import Step

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


def saved_digest(cells: Iterable[RunnableCell]) -> str:
    """Return a short digest of the cells a saved notebook carries forward, to tell a new save."""
    text = "\n\0".join(normalized(cell.source) for cell in cells)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def read_history(folder: str | Path = ".") -> dict[str, Any]:
    """Return {function name: its last check} from the folder's history, {} when there is none."""
    try:
        data = json.loads((Path(folder) / HISTORY_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def record_check(
    name: str, source: str, passed: bool, folder: str | Path = ".", saved: str = ""
) -> None:
    """Write down that `name`, as `source`, was checked and whether it passed; never raise.

    `saved` is the saved_digest of the step's saved cells at the time of the check. A folder
    the student cannot write to only loses this advice, so errors are ignored.
    """
    history = read_history(folder)
    history[name] = {
        "source": source,
        "passed": bool(passed),
        "at": time.strftime("%H:%M"),
        "saved": saved,
    }
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
    """Return a sentence when the last check of `name` ran code that was never saved, or "".

    `cells` are the cells the saved notebook carries forward. A notebook saved since the check
    (its cells are not those of the check's time) gets no sentence: its version was saved, only
    not checked, and whoever calls this checks the saved version itself.
    """
    entry = read_history(folder).get(name)
    if not isinstance(entry, dict) or not isinstance(entry.get("source"), str):
        return ""
    cells = list(cells)
    if saved_holds(entry["source"], cells) or entry.get("saved") != saved_digest(cells):
        return ""
    outcome = "passed" if entry.get("passed") else "did not pass"
    return (
        f"The check of `{name}` {outcome} at {entry.get('at', '?')} on a version that "
        f"{step.notebook} does not hold as saved. Open it: if it shows unsaved changes, save "
        "it (File → Save Notebook); if it does not (they were discarded), run it from the top "
        "(Run → Run All Cells) so the saved version is checked. Then run this cell again."
    )


@dataclass(frozen=True)
class CellRun:
    """One run of a cell: its id, its source, and whether it stopped before running anything."""

    cell_id: str
    source: str
    not_run: bool = False  # a syntax error (or the like) kept every line from running


class CellRuns:
    """The runs of a kernel's cells, in order, as IPython reports them before and after each."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.runs: list[CellRun] = []

    def before(self, info: Any) -> None:
        """Note the cell about to run (IPython's pre_run_cell event)."""
        cell_id = getattr(info, "cell_id", None) or self._sent_cell_id()
        if cell_id:
            self.runs.append(CellRun(str(cell_id), str(getattr(info, "raw_cell", ""))))

    def after(self, result: Any) -> None:
        """Note a run that stopped before its first line (IPython's post_run_cell event)."""
        if self.runs and getattr(result, "error_before_exec", None) is not None:
            last = self.runs[-1]
            self.runs[-1] = CellRun(last.cell_id, last.source, not_run=True)

    def _sent_cell_id(self) -> object:
        """Return the cell id the front end sent with the running request, if it sent one.

        ipykernel hands IPython the id itself; the browser's Pyodide kernel does not, but keeps
        the request, whose metadata carries it.
        """
        try:
            parent = self.shell.kernel.get_parent()
            metadata = parent.get("metadata") if isinstance(parent, dict) else None
            return metadata.get("cellId") if isinstance(metadata, dict) else None
        except Exception:  # a front end or kernel of another shape: watch nothing
            return None

    def stale_message(self, name: str, labels: dict[str, str]) -> str | None:
        """Say why this kernel's `name` is not what its cell defines now, or return None.

        `labels` names cells for the student (an exercise cell's id to "the exercise cell").
        """
        giving = next(
            (r for r in reversed(self.runs) if not r.not_run and name in defined_names(r.source)),
            None,
        )
        if giving is None:
            return None
        last = next(r for r in reversed(self.runs) if r.cell_id == giving.cell_id)
        cell = labels.get(last.cell_id, "the cell that defined it")
        if last.not_run:
            return (
                f"The last run of {cell} stopped before its first line (a syntax error, say), "
                f"so this kernel still has the `{name}` of the run before, which the saved "
                "notebook will not have. Fix the error, run the cell, then this check."
            )
        if last is giving:
            return None
        now = sorted(n for n in defined_names(last.source) if not n.startswith("_"))
        defines = ", ".join(f"`{n}`" for n in now) or "nothing"
        return (
            f"`{name}` in this kernel comes from an earlier run of {cell}, which no longer "
            f"defines it (it now defines {defines}). Later notebooks and the grader read the "
            "cell as it is, so this check does not judge the old version. Name the function "
            f"`{name}` again, run the cell, then this check."
        )


def watch_cells() -> CellRuns | None:
    """Return the CellRuns watching this IPython kernel, starting one; None outside IPython."""
    shell = _shell()
    if shell is None:
        return None
    found = watching()
    if found is not None:
        return found
    runs = CellRuns(shell)
    shell.events.register("pre_run_cell", runs.before)
    shell.events.register("post_run_cell", runs.after)
    return runs


def watching() -> CellRuns | None:
    """Return the CellRuns watching this kernel, or None (no IPython, or not watched yet)."""
    events = getattr(_shell(), "events", None)
    for callback in getattr(events, "callbacks", {}).get("pre_run_cell", []):
        owner = getattr(callback, "__self__", None)
        if isinstance(owner, CellRuns):
            return owner
    return None


def _shell() -> Any:
    """Return the running IPython shell, or None: IPython is looked up, never imported here."""
    ipython = sys.modules.get("IPython")
    get_ipython = getattr(ipython, "get_ipython", None)
    return get_ipython() if callable(get_ipython) else None
