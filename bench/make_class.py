"""Generate a class of nbgrader-style submissions from the lessons and the fixture catalogue.

Each student is `submitted/<student>/bounded_results/*.ipynb`: the untouched lessons with the
last step's `invoke-tool` exercise cell replaced by one catalogue submission (every catalogue
file is self-contained, so it needs none of the earlier steps). The mix cycles through correct,
buggy and adversarial submissions in a fixed order, so the same N gives the same class.
"""

import json
import shutil
from pathlib import Path

from course.carry.notebooks import cell_id_of
from course.manifest import Course, load_course
from grader.paths import LESSONS, SUBMISSIONS
from grader.selfcheck.expectations import find_fixture

CATALOGUE = SUBMISSIONS

# Adversarial submissions that finish in about the time of an honest one. Those that hang,
# crash or fill memory on every test measure the time limits, not the grader, so they stay out.
QUICK_ADVERSARIAL = (
    "eq-always-true",
    "dict-subclass-envelope",
    "missing-function",
    "patched-json-dumps",
    "patches-grader-modules",
    "reads-hidden-tests",
    "syntax-error",
    "sys-exit-at-import",
    "wrong-signature",
    "writes-output-folder",
)


def submission_mix() -> list[Path]:
    """Return the catalogue files a class cycles through: about 3 correct, 5 buggy, 2 hostile."""
    correct = sorted((CATALOGUE / "correct").glob("*.py"))
    buggy = sorted((CATALOGUE / "buggy").glob("*/*.py"))
    hostile = [find_fixture("adversarial", name) for name in QUICK_ADVERSARIAL]
    mix: list[Path] = []
    for index in range(max(len(correct), len(buggy), len(hostile))):
        for group, share in ((correct, 3), (buggy, 5), (hostile, 2)):
            mix.extend(group[(index * share + k) % len(group)] for k in range(share))
    return mix


def write_student(folder: Path, source: str, course: Course) -> None:
    """Write one student's lesson notebooks, with `source` as the last step's exercise cell."""
    folder.mkdir(parents=True)
    last_step = course.steps[-1]
    for step in course.steps:
        lesson = LESSONS / course.assignment / step.notebook
        if step is not last_step:
            shutil.copyfile(lesson, folder / step.notebook)
            continue
        notebook = json.loads(lesson.read_text(encoding="utf-8"))
        for cell in notebook["cells"]:
            if cell_id_of(cell) in step.exercises:
                cell["source"] = source.splitlines(keepends=True)
        text = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
        (folder / step.notebook).write_text(text, encoding="utf-8")


def make_class(root: str | Path, size: int) -> list[str]:
    """Write `size` students under `root/submitted`; return the student ids in order."""
    course = load_course()
    mix = submission_mix()
    students = [f"student-{n:04d}" for n in range(size)]
    for n, student in enumerate(students):
        source = mix[n % len(mix)].read_text(encoding="utf-8")
        write_student(Path(root) / "submitted" / student / course.assignment, source, course)
    return students
