"""What the build tools add to grader/paths.py (the project's one map of its folders)."""

from pathlib import Path

from course.manifest import load_course
from grader.paths import PROJECT_ROOT

NBGRADER_CONFIG = PROJECT_ROOT / "nbgrader_config.py"


def assignment_name() -> str:
    """Return the nbgrader assignment name the course manifest declares."""
    return load_course().assignment


def relative(path: str | Path) -> Path:
    """Return `path` relative to the project when it lies inside it, for short messages."""
    path = Path(path)
    try:
        return path.resolve().relative_to(PROJECT_ROOT)
    except ValueError:
        return path
