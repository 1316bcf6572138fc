"""The grader's packages say on which side of a process boundary their code runs, and keep to it.

grader/batch/ is the parent of the job processes, grader/job/ is a job; they speak only through
grader/jobfiles.py and grader/jobstart.py. The sandbox is used by both and imports neither;
grader/jobstart.py is imported first of all, so it imports nothing but the standard library.
"""

import ast
import sys
from pathlib import Path

import pytest

from grader.paths import PROJECT_ROOT

pytestmark = []

GRADER = PROJECT_ROOT / "grader"


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, by its full dotted name (relative imports made absolute)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def modules_under(folder: str) -> list[Path]:
    return sorted((GRADER / folder).rglob("*.py"))


FORBIDDEN = {
    "batch": ("grader.job",),
    "job": ("grader.batch", "grader.pipeline", "grader.recording", "grader.cli"),
    "sandbox": ("grader.batch", "grader.job", "grader.pipeline", "grader.cli", "grader.hidden"),
    "hidden": ("grader.batch", "grader.job", "grader.pipeline", "grader.cli"),
}


@pytest.mark.parametrize("package", FORBIDDEN)
def test_no_module_imports_from_the_other_side(package):
    crossing = {
        f"{path.relative_to(GRADER)} imports {name}"
        for path in modules_under(package)
        for name in imported_modules(path)
        if any(name == side or name.startswith(side + ".") for side in FORBIDDEN[package])
    }
    assert not crossing


def test_the_job_start_protocol_imports_only_the_standard_library():
    outside = {
        name
        for name in imported_modules(GRADER / "jobstart.py")
        if name.split(".")[0] not in sys.stdlib_module_names
    }
    assert not outside


def test_the_top_of_the_grader_holds_only_the_cli_the_pipeline_and_what_every_step_shares():
    top = sorted(path.name for path in GRADER.glob("*.py"))
    assert top == [
        "__init__.py",
        "__main__.py",
        "jobfiles.py",
        "jobstart.py",
        "model.py",
        "outputs.py",
        "paths.py",
        "pipeline.py",
        "recording.py",
        "score.py",
    ]
