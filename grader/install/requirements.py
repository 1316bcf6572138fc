"""The pinned requirements of each installed group, as `make lock` wrote them under requirements/.

pyproject.toml declares the groups: the grader's own dependencies ("grader", all the Gradescope
bundle installs) and its optional ones (course, nbgrader, similarity, lite, dev).
requirements/lock.txt pins them all at once; each group that something installs has its closure
at those versions in requirements/<group>.txt (tooling/lock.py writes them).
"""

from pathlib import Path

from grader.paths import REQUIREMENTS

LOCK = REQUIREMENTS / "lock.txt"
RUNTIME = "grader"  # pyproject.toml's [project] dependencies: what `python -m grader grade` needs
# What installs each: the Gradescope bundle, the student handout, the browser build, .venv.
LOCKED_GROUPS = (RUNTIME, "course", "lite", "dev")


def group_file(group: str, folder: Path = REQUIREMENTS) -> Path:
    """Return the file that pins `group`; raise ValueError for a group with none."""
    if group not in LOCKED_GROUPS:
        known = ", ".join(LOCKED_GROUPS)
        raise ValueError(f"no locked dependency group {group!r}: the locked groups are {known}")
    return folder / f"{group}.txt"


def locked_requirements(group: str, folder: Path = REQUIREMENTS) -> list[str]:
    """Return the group's pins, one `name==version` line each (with its marker, if any).

    Comments and blank lines are left out. Raise ValueError for an unknown group, and
    FileNotFoundError, naming `make lock`, when its file is missing.
    """
    path = group_file(group, folder)
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run `make lock`")
    lines = (
        line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines()
    )
    return [line for line in lines if line]
