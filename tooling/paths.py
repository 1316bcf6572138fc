"""What the build tools add to grader/paths.py (the project's one map of its folders).

REPO_ROOT, SOLUTIONS_DIR and LESSONS_DIR are grader.paths' PROJECT_ROOT, SOLUTIONS and LESSONS
under their older names, kept for the modules that still import them from here.
"""

from pathlib import Path

from course.manifest import load_course
from grader.paths import LESSONS, PROJECT_ROOT, SOLUTIONS

NBGRADER_CONFIG = PROJECT_ROOT / "nbgrader_config.py"
REPO_ROOT, SOLUTIONS_DIR, LESSONS_DIR = PROJECT_ROOT, SOLUTIONS, LESSONS


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
