"""The grader's imports keep pyproject.toml's import contracts, and each contract can fail.

The contracts (import-linter's, which `make check` runs too) put the grader's packages in
pipeline order, forbid cycles between them, keep the worker's code to itself and the course
free of the grader. Each is also shown failing, on a copy of the project with an import added
that breaks it, such as the imports the layering was made to end: intake importing the steps
after it, reports and gradebook importing each other, the hidden tests reaching into the
worker's code.
"""

import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path

from grader.paths import PROJECT_ROOT

pytestmark = []

# The console script beside this interpreter: the one `make check` runs.
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
PYPROJECT = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
CONTRACTS = {
    contract["id"]: contract["name"] for contract in PYPROJECT["tool"]["importlinter"]["contracts"]
}

# For each contract, the imports that break it: (module, the line added to it, what the
# contract's part of the report then says).
BREAKS = {
    "pipeline": [
        # The reviewer's first finding: intake importing a later step to learn a file's name.
        (
            "grader/intake/ids.py",
            "from grader.reports import grade_files",
            "grader.intake.ids -> grader.reports.grade_files",
        ),
        # The layers are exhaustive: a new top-level module fails until it is given its layer.
        ("grader/stray.py", "import grader.model", "- grader.stray"),
    ],
    # gradebook imports reports already, so this makes the two import each other.
    "acyclic": [
        ("grader/reports/summary.py", "import grader.gradebook.lms", ".reports -> .gradebook"),
    ],
    "worker-imports": [
        (
            "grader/sandbox/inside/picture.py",
            "import grader.model",
            "grader.sandbox.inside.picture -> grader.model",
        ),
    ],
    "worker-door": [
        (
            "grader/hidden/probes.py",
            "import grader.sandbox.inside.guard",
            "grader.hidden.probes -> grader.sandbox.inside.guard",
        ),
    ],
    "course-alone": [
        ("course/contract.py", "import grader.paths", "course.contract -> grader.paths"),
    ],
}


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """Run the contracts of `root`'s pyproject.toml on the packages under `root`."""
    # `root` first on the path, so a copy's packages are read rather than the installed ones;
    # wide lines, so that no contract's name is broken over two in the report.
    environment = {**os.environ, "PYTHONPATH": str(root), "COLUMNS": "1000"}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo"],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_grader_keeps_every_import_contract():
    result = lint_imports(PROJECT_ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in result.stdout


def test_each_contract_fails_on_an_import_that_breaks_it(tmp_path):
    assert set(BREAKS) == set(CONTRACTS)  # every contract is shown failing
    for package in ("grader", "course"):
        shutil.copytree(PROJECT_ROOT / package, tmp_path / package, ignore=_only_python)
    shutil.copy(PROJECT_ROOT / "pyproject.toml", tmp_path)
    for module, line, _said in (each for breaks in BREAKS.values() for each in breaks):
        with (tmp_path / module).open("a", encoding="utf-8") as source:
            source.write(f"\n{line}\n")
    # One run for them all (each run takes a second or two); each contract's part of the report
    # must name its own breaks, whatever else they break.
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"Contracts: 0 kept, {len(CONTRACTS)} broken." in result.stdout
    parts = _parts_by_contract(result.stdout, CONTRACTS.values())
    for contract, breaks in BREAKS.items():
        part = parts[CONTRACTS[contract]]
        for _module, _line, said in breaks:
            assert said in part, part


def _only_python(folder: str, names: list[str]) -> set[str]:
    """Leave out of a copy all but folders and Python files (the corpus, caches, templates)."""
    return {
        name
        for name in names
        if name == "__pycache__" or not (name.endswith(".py") or Path(folder, name).is_dir())
    }


def _parts_by_contract(report: str, names: Iterable[str]) -> dict[str, str]:
    """Split lint-imports' account of its broken contracts into each one's part, by name."""
    broken = report[report.index("Broken contracts") :]
    starts = sorted((broken.index(f"\n{name}\n"), name) for name in names)
    ends = [start for start, _name in starts[1:]] + [len(broken)]
    return {name: broken[start:end] for (start, name), end in zip(starts, ends, strict=True)}
