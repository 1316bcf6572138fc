"""The runtime copy: the only project files a worker can see, copied fresh for each job.

A worker needs only the Python installation, the supplied course code and the few grader modules
it imports: RUNTIME_FILES and RUNTIME_FOLDERS, the one list of them. `prepare_runtime` copies
them into a folder of the job's, which grader/sandbox/containment.py then gives the fork server
read-only: never the repository, the hidden tests, the solutions or any job or result file.
"""

import compileall
import importlib.util
import shutil
from pathlib import Path

from grader.paths import PROJECT_ROOT

# Everything the worker imports from the project; all of it is safe for a student to read.
# The one list of what the sandbox's copy holds: the supplied course code student cells run
# with, and the code that runs beside them. The Gradescope bundle and the resume fingerprint
# are built from it too.
# The visible checks are among them: Gradescope runs them beside the student's code. So are the
# hand-in's identity file's names, which the grader's intake reads (course/identity.py).
COURSE_RUNTIME = (
    "course/__init__.py",
    "course/carry/__init__.py",
    "course/carry/analysis.py",
    "course/carry/assemble.py",
    "course/carry/diagnose.py",
    "course/carry/execute.py",
    "course/carry/history.py",
    "course/carry/notebooks.py",
    "course/carry/setup_cell.py",
    "course/checks/__init__.py",
    "course/checks/blame.py",
    "course/checks/envelope.py",
    "course/checks/error_codes.py",
    "course/checks/harness.py",
    "course/checks/invoke_tool.py",
    "course/checks/no_retry.py",
    "course/checks/oracle.py",
    "course/checks/ownership.py",
    "course/checks/unicode_boundary.py",
    "course/checks/visible.py",
    "course/checks/vocabulary.py",
    "course/contract.py",
    "course/identity.py",
    "course/manifest.py",
    "course/supplied.py",
    "course/tools.py",
)
# The data those modules read: the example tools' records, and the steps' manifest.
COURSE_DATA = (
    "course/records/documents.json",
    "course/records/teams.json",
    "course/records/users.json",
    "course/steps.toml",
)
RUNTIME_FILES = (
    *COURSE_RUNTIME,
    *COURSE_DATA,
    "grader/__init__.py",
    "grader/sandbox/__init__.py",
)
RUNTIME_FOLDERS = ("grader/sandbox/inside",)


def prepare_runtime(folder: str | Path) -> Path:
    """Copy the modules a worker imports into `folder`/runtime, readable by everyone; return it.

    Each source keeps its modification time and comes with the project's own bytecode where it
    has some (`python -m grader.install.bytecode` writes it at install time): bytecode records the
    time and size of its source, so it is valid for the copy. What is missing or stale is
    compiled here, from the copies, so that no worker compiles the runtime at every start (it
    cannot write bytecode: the folder is read-only to it).
    """
    runtime = Path(folder) / "runtime"
    for name in RUNTIME_FOLDERS:
        shutil.copytree(PROJECT_ROOT / name, runtime / name)  # with __pycache__, times kept
    for name in RUNTIME_FILES:
        _copy_with_bytecode(PROJECT_ROOT / name, runtime / name)
    compileall.compile_dir(runtime, quiet=1, workers=1)
    for place in (Path(folder), *runtime.rglob("*"), runtime):
        place.chmod(0o755 if place.is_dir() else 0o644)
    return runtime


def _copy_with_bytecode(source: Path, target: Path) -> None:
    """Copy a file, keeping its time, and a Python module's bytecode if the project has it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)
    if source.suffix != ".py":
        return
    compiled = Path(importlib.util.cache_from_source(str(source)))
    if compiled.is_file():
        copied = Path(importlib.util.cache_from_source(str(target)))
        copied.parent.mkdir(exist_ok=True)
        shutil.copy2(compiled, copied)
