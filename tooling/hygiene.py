"""Check that every committed notebook is clean: no outputs, stable ids, only needed metadata.

`python -m tooling.hygiene` checks solutions/ and lessons/ and prints one line per problem.
Solutions hold exactly what the brief allows (per cell only `nbgrader`); lessons may also hold
what nbgrader's generate_assignment adds itself.
"""

import json
import re
import sys
from collections.abc import Mapping, Set
from pathlib import Path
from typing import Any

from grader.paths import LESSONS, SOLUTIONS
from tooling.paths import relative

NOTEBOOK_METADATA = {"kernelspec", "language_info"}
SOLUTION_CELL_METADATA = {"nbgrader"}
# generate_assignment locks read-only cells with these two keys.
LESSON_CELL_METADATA = {"nbgrader", "deletable", "editable"}
MEANINGFUL_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
# nbformat's random ids are hex (uuid4 slices, or whole uuids with dashes).
RANDOM_LOOKING_ID = re.compile(r"(?=.*[0-9])[0-9a-f]{8,}")


def id_problem(cell_id: object) -> str | None:
    """Return why `cell_id` is not a stable meaningful id, or None when it is one."""
    if not isinstance(cell_id, str) or not cell_id:
        return "has no id"
    if not MEANINGFUL_ID.fullmatch(cell_id):
        return f"has the id {cell_id!r}; use lowercase words joined by dashes"
    if RANDOM_LOOKING_ID.fullmatch(cell_id.replace("-", "")):
        return f"has the random-looking id {cell_id!r}; give it a name that says what it holds"
    return None


def cell_problems(cell: Mapping[str, Any], allowed_metadata: Set[str]) -> list[str]:
    """Return the problems of one cell, each a phrase that follows the cell's name."""
    problems = []
    if cell.get("cell_type") == "code":
        if cell.get("outputs"):
            problems.append("has outputs; clear them before committing")
        if cell.get("execution_count") is not None:
            problems.append("has an execution_count; it must be null")
    extra = sorted(set(cell.get("metadata", {})) - allowed_metadata)
    if extra:
        problems.append(f"has cell metadata {', '.join(extra)} that the course does not need")
    grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
    if grade_id is not None and grade_id != cell.get("id"):
        problems.append(f"has the nbgrader grade_id {grade_id!r}, which differs from its id")
    if cell.get("cell_type") == "code" and grade_id is None:
        # course/carry/assemble.py counts a code cell without a grade_id as one the student added,
        # so it would carry forward into later notebooks and into grading.
        problems.append(
            "has no nbgrader grade_id, so it would count as the student's own cell and carry "
            "forward; make it a locked cell with the course's nbgrader metadata"
        )
    return problems


def notebook_problems(path: str | Path, allowed_cell_metadata: Set[str]) -> list[str]:
    """Return one line per problem in the notebook at `path`."""
    name = relative(path)
    try:
        notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        return [f"{name}: cannot be read as JSON ({error})"]
    problems = []
    extra = sorted(set(notebook.get("metadata", {})) - NOTEBOOK_METADATA)
    if extra:
        problems.append(f"{name}: has notebook metadata {', '.join(extra)}; keep only kernelspec")
    kernel = notebook.get("metadata", {}).get("kernelspec", {}).get("name")
    if kernel != "python3":
        problems.append(f"{name}: its kernelspec name is {kernel!r}, not 'python3'")
    seen = set()
    for index, cell in enumerate(notebook.get("cells", []), start=1):
        cell_id = cell.get("id")
        label = f"{name}: cell {index} ({cell_id or 'no id'})"
        bad_id = id_problem(cell_id)
        if bad_id:
            problems.append(f"{label} {bad_id}")
        elif cell_id in seen:
            problems.append(f"{label} repeats an id used earlier in the notebook")
        seen.add(cell_id)
        problems.extend(f"{label} {p}" for p in cell_problems(cell, allowed_cell_metadata))
    return problems


def all_problems(
    *, solutions_dir: str | Path = SOLUTIONS, lessons_dir: str | Path = LESSONS
) -> list[str]:
    """Check every notebook under the solutions and lessons folders."""
    problems = []
    for folder, allowed in (
        (solutions_dir, SOLUTION_CELL_METADATA),
        (lessons_dir, LESSON_CELL_METADATA),
    ):
        for path in sorted(Path(folder).rglob("*.ipynb")):
            if ".ipynb_checkpoints" not in path.parts:
                problems.extend(notebook_problems(path, allowed))
    return problems


def main() -> int:
    """Print one line per notebook problem; exit 1 if there is any."""
    problems = all_problems()
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if not problems:
        print("Every committed notebook is clean.")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
