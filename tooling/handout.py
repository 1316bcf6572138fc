"""Build exactly what students receive: the lessons, the supplied code and records, a README.

`python -m tooling.handout [folder]` writes the handout to `folder` (default build/handout/) and
a zip of it next to the folder. It copies from an allow-list, never from the repository as a
whole, so the solutions, the grader and the tests cannot slip in.
"""

import argparse
import shutil
import sys
from pathlib import Path

from grader.install.requirements import locked_requirements
from grader.paths import LESSONS, PROJECT_ROOT
from tooling.paths import assignment_name, relative

DEFAULT_FOLDER = PROJECT_ROOT / "build" / "handout"
# What a student installs: pyproject.toml's `course` group, at the lock's versions.
STUDENT_GROUP = "course"
# What the handout holds beside the course package, kept as plain files: the student README (a
# template naming the assignment), its pyproject, the command that zips the work to hand in, the
# notebook that does the same in the browser, and JupyterLab's settings for the lessons.
STUDENT_FILES = Path(__file__).with_name("student")
HAND_IN = "hand_in.py"
HAND_IN_NOTEBOOK = "hand-in.ipynb"
# The pyproject installs it as share/jupyter/lab/settings/overrides.json, where JupyterLab reads
# its defaults (no news pop-up over the explorers; closing a notebook's tab shuts its kernel
# down).
LAB_SETTINGS = "overrides.json"
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")


def build_handout(
    folder: str | Path = DEFAULT_FOLDER, *, lessons_dir: str | Path = LESSONS
) -> Path:
    """Write the handout into `folder` (replacing it) and a zip beside it; return the zip's path."""
    folder = Path(folder)
    assignment = assignment_name()
    lessons = Path(lessons_dir) / assignment
    if not sorted(lessons.glob("*.ipynb")):
        raise FileNotFoundError(f"{relative(lessons)} holds no notebooks: run `make lessons`.")
    shutil.rmtree(folder, ignore_errors=True)
    target_lessons = folder / "lessons" / assignment
    target_lessons.mkdir(parents=True)
    for notebook in sorted(lessons.glob("*.ipynb")):
        shutil.copy2(notebook, target_lessons / notebook.name)
    shutil.copy2(STUDENT_FILES / HAND_IN_NOTEBOOK, target_lessons / HAND_IN_NOTEBOOK)
    shutil.copytree(PROJECT_ROOT / "course", folder / "course", ignore=IGNORED)
    (folder / "jupyter").mkdir()
    shutil.copy2(STUDENT_FILES / LAB_SETTINGS, folder / "jupyter" / LAB_SETTINGS)
    # Not an editable install: pip leaves an editable project's data files (the settings) out.
    requirements = "\n".join([*locked_requirements(STUDENT_GROUP), "."]) + "\n"
    (folder / "requirements.txt").write_text(requirements, encoding="utf-8")
    shutil.copy2(STUDENT_FILES / "pyproject.toml", folder / "pyproject.toml")
    shutil.copy2(STUDENT_FILES / HAND_IN, folder / HAND_IN)
    readme = (STUDENT_FILES / "README.md").read_text(encoding="utf-8")
    readme = readme.replace("{assignment}", assignment)
    (folder / "README.md").write_text(readme, encoding="utf-8")
    return Path(shutil.make_archive(str(folder), "zip", root_dir=folder))


def main(argv: list[str] | None = None) -> int:
    """Build the handout folder and its zip, and say where they are."""
    parser = argparse.ArgumentParser(prog="python -m tooling.handout", description=__doc__)
    parser.add_argument("folder", nargs="?", default=DEFAULT_FOLDER, type=Path)
    args = parser.parse_args(argv)
    try:
        archive = build_handout(args.folder)
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"Wrote {relative(args.folder)}/ and {relative(archive)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
