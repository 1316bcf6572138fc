"""Markers by what a test needs, so `make test-fast` can leave out what takes a machine or minutes.

    browser   drives JupyterLab in Chromium (tests/browser)
    nbgrader  runs nbgrader's own commands (tests/nbgrader)
    bwrap     starts grading workers: bubblewrap, cgroups and root, as CI has
    slow      takes a minute or more
    cgroups   needs cgroups the grader may make (every host of tests/hosts/ but one without)

CI runs every test (`make test`); `make test-fast` runs those with none of these marks.
"""

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
BY_FOLDER = {"browser": "browser", "nbgrader": "nbgrader"}
# Modules of tests/grader whose tests start sandboxed workers or whole grading runs.
SANDBOXED = {
    "test_archives",
    "test_report_hints",
    "test_batch_robustness",
    "test_carry_forward",
    "test_class_report",
    "test_cli",
    "test_gradebook",
    "test_gradescope_autograder",
    "test_gradescope_bundle",
    "test_gradescope_debootstrap",
    "test_gradescope_isolation",
    "test_gradescope_visible_checks",
    "test_hidden_catalogue",
    "test_intake_attacks",
    "test_lms",
    "test_resume_runs",
    "test_run_buggy",
    "test_run_isolation",
    "test_run_job_failure",
    "test_run_reference",
    "test_sandbox_adversarial",
    "test_sandbox_attacks",
    "test_sandbox_cgroups",
    "test_sandbox_clock",
    "test_sandbox_containment",
    "test_sandbox_facts",
    "test_sandbox_forkserver",
    "test_sandbox_guard",
    "test_sandbox_kernel",
    "test_sandbox_landlock",
    "test_selfcheck",
    "test_shards",
    "test_trusted_side_bounds",
}
SLOW = {
    "test_gradescope_debootstrap",
    "test_sandbox_adversarial",
    "test_sandbox_attacks",
    "test_selfcheck",
    "test_resume_runs",
    "test_mutation",
    "test_notebooks_execute",
}


def pytest_configure(config):
    for name in ("browser", "nbgrader", "bwrap", "slow", "cgroups"):
        config.addinivalue_line("markers", f"{name}: see tests/conftest.py")
    modules = list(TESTS.rglob("test_*.py"))
    stems = [path.stem for path in modules]
    # Shared builders live in builder modules and conftest.py: a test module that imports
    # another breaks as soon as that one is renamed or tidied.
    borrowing = sorted(
        path.name
        for path in modules
        if any(
            line.startswith(("from test_", "import test_"))
            for line in path.read_text(encoding="utf-8").splitlines()
        )
    )
    if borrowing:
        raise pytest.UsageError(f"test modules import other test modules: {borrowing}")
    # The test folders are not packages, so two modules of one name collide at collection.
    repeated = sorted({stem for stem in stems if stems.count(stem) > 1})
    if repeated:
        raise pytest.UsageError(f"test modules need names unique across tests/: {repeated}")
    present = set(stems)
    unknown = (SANDBOXED | SLOW) - present
    if unknown:
        raise pytest.UsageError(f"tests/conftest.py names modules that do not exist: {unknown}")


def pytest_collection_modifyitems(items):
    for item in items:
        path = Path(item.fspath)
        folder = path.relative_to(TESTS).parts[0]
        if folder in BY_FOLDER:
            item.add_marker(BY_FOLDER[folder])
            item.add_marker("slow")
        if folder == "grader" and path.stem in SANDBOXED:
            item.add_marker("bwrap")
        if path.stem in SLOW:
            item.add_marker("slow")
