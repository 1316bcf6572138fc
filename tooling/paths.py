"""Where the course's folders live, read from the repository and its course manifest."""

from pathlib import Path

from course.manifest import load_course

REPO_ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS_DIR = REPO_ROOT / "solutions"
LESSONS_DIR = REPO_ROOT / "lessons"
NBGRADER_CONFIG = REPO_ROOT / "nbgrader_config.py"


def assignment_name():
    """Return the nbgrader assignment name the course manifest declares."""
    return load_course().assignment


def relative(path):
    """Return `path` relative to the repository when it lies inside it, for short messages."""
    path = Path(path)
    try:
        return path.resolve().relative_to(REPO_ROOT)
    except ValueError:
        return path
