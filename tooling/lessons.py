"""Generate the student lessons from the solutions with nbgrader, or check they are in sync.

`python -m tooling.lessons` writes lessons/<assignment>/ with nbgrader's own
`generate_assignment`; `python -m tooling.lessons --check` regenerates into a temporary folder
and compares it, byte for byte, with the committed lessons.

nbgrader runs in a temporary copy of the course root, so its gradebook database and log never
land in the repository. Its output is committed exactly as written: nbgrader keeps the cell ids
and the notebook metadata, clears outputs and execution counts, and adds `deletable`,
`editable`, `cell_type` and a `checksum` to locked cells. The output is deterministic, so no
normalizing is needed.
"""

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from course.carry.history import HISTORY_FILE
from grader.paths import LESSONS, SOLUTIONS
from tooling.paths import NBGRADER_CONFIG, assignment_name, relative

# nbgrader's own default ignore list (files it never copies from a source assignment), and the
# record the check cells keep beside a notebook that was run (course/carry/history.py).
IGNORED = shutil.ignore_patterns(
    ".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", HISTORY_FILE
)


class LessonsError(Exception):
    """The lessons could not be generated, or differ from what nbgrader generates."""


def run_nbgrader(course_root: Path, assignment: str) -> None:
    """Run `nbgrader generate_assignment` in `course_root`; raise LessonsError if it fails."""
    env = dict(os.environ)
    # nbgrader shells out to `alembic` for its gradebook, so the venv's bin must be on PATH.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    command = [
        sys.executable,
        "-m",
        "nbgrader",
        "generate_assignment",
        assignment,
        "--force",
        f"--CourseDirectory.root={course_root}",
        f"--CourseDirectory.db_url=sqlite:///{course_root}/gradebook.db",
    ]
    result = subprocess.run(
        command, cwd=course_root, env=env, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise LessonsError(
            f"nbgrader generate_assignment failed (exit {result.returncode}):\n{result.stderr}"
        )


def generate_into(
    work_dir: str | Path, *, solutions_dir: str | Path = SOLUTIONS, assignment: str | None = None
) -> Path:
    """Generate the lessons in a scratch course root under `work_dir`; return the release folder."""
    assignment = assignment or assignment_name()
    source = Path(solutions_dir) / assignment
    if not source.is_dir():
        raise LessonsError(f"{relative(source)} does not exist, so there is nothing to generate.")
    course_root = Path(work_dir) / "course-root"
    shutil.copytree(source, course_root / "solutions" / assignment, ignore=IGNORED)
    shutil.copy2(NBGRADER_CONFIG, course_root / "nbgrader_config.py")
    run_nbgrader(course_root, assignment)
    return course_root / "lessons" / assignment


def write_lessons(
    *,
    solutions_dir: str | Path = SOLUTIONS,
    lessons_dir: str | Path = LESSONS,
    assignment: str | None = None,
) -> Path:
    """Regenerate lessons_dir/<assignment>/ from the solutions, replacing what was there."""
    assignment = assignment or assignment_name()
    target = Path(lessons_dir) / assignment
    with tempfile.TemporaryDirectory() as work_dir:
        generated = generate_into(work_dir, solutions_dir=solutions_dir, assignment=assignment)
        # Replace the whole folder so a notebook removed from solutions/ also leaves lessons/.
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(generated, target)
    return target


def differences(generated: str | Path, committed: str | Path) -> list[str]:
    """Return one sentence per file that differs between two lesson folders."""
    generated, committed = Path(generated), Path(committed)
    names = sorted(
        {p.relative_to(generated) for p in generated.rglob("*") if p.is_file()}
        | {
            p.relative_to(committed)
            for p in committed.rglob("*")
            if p.is_file() and p.name != HISTORY_FILE
        }
    )
    problems = []
    for name in names:
        fresh, kept = generated / name, committed / name
        if not kept.exists():
            problems.append(f"{relative(kept)} is missing: run `make lessons` and commit it.")
        elif not fresh.exists():
            problems.append(f"{relative(kept)} has no source notebook in solutions/: remove it.")
        elif not filecmp.cmp(fresh, kept, shallow=False):
            problems.append(
                f"{relative(kept)} is out of sync with its solution notebook: run `make lessons`."
            )
    return problems


def check_lessons(
    *,
    solutions_dir: str | Path = SOLUTIONS,
    lessons_dir: str | Path = LESSONS,
    assignment: str | None = None,
) -> list[str]:
    """Return the problems that keep the committed lessons from matching a fresh generation."""
    assignment = assignment or assignment_name()
    with tempfile.TemporaryDirectory() as work_dir:
        generated = generate_into(work_dir, solutions_dir=solutions_dir, assignment=assignment)
        return differences(generated, Path(lessons_dir) / assignment)


def main(argv: list[str] | None = None) -> int:
    """Generate the lessons, or with --check report the ones out of sync; exit 1 on problems."""
    parser = argparse.ArgumentParser(prog="python -m tooling.lessons", description=__doc__)
    parser.add_argument(
        "--check", action="store_true", help="compare with the committed lessons instead"
    )
    args = parser.parse_args(argv)
    try:
        if not args.check:
            print(f"Wrote {relative(write_lessons())}/")
            return 0
        problems = check_lessons()
    except LessonsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if not problems:
        print("The lessons are in sync with the solutions.")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
