"""Self-check: grade every fixture submission through the real pipeline, compare with expectations.

`python -m grader selfcheck` prints one line per submission (✓ or ✗ and what differed) and
exits 1 if any expectation fails. The test suite runs it too, so the grader is held to known
answers: the reference scores full marks, the untouched lessons score 0, each buggy
submission loses points in exactly its category, and each adversarial one gets its label.

A fixture's path says what it must score; the folder that holds the file decides:

    correct/<name>.py, <kind>/correct/<name>.py   every point in every category, run completed
    <kind>/<category>/<name>.py                   points lost in that category only, run completed
    <kind>/<status>/<name>.py                     the run or a test ends with that status, and
                                                  every category loses points

`fixtures/submissions/exceptions.toml` holds only what a path cannot say; the file's docstring
says what the student did.
"""

import sys
from pathlib import Path
from typing import TextIO

from course.manifest import load_course
from grader.batch.run import RunSettings
from grader.gradebook.book import ClassBook
from grader.intake.discover import Found
from grader.intake.load import load
from grader.model import Grade
from grader.paths import PROJECT_ROOT, SUBMISSIONS
from grader.pipeline import grade_submissions
from grader.sandbox.cleanup import temporary_folder
from grader.selfcheck.expectations import Expectation, FixtureLayoutError, load_expectations
from grader.selfcheck.trees import build_trees, late_differences, late_settings

JOBS = 2


def check(expectation: Expectation, grade: Grade) -> str:
    """Return what differed between `grade` and `expectation`, or "" when it was met."""
    run = grade.run
    lost = sorted(c.category for c in grade.categories if c.points < c.max_points)
    labels = sorted({run.status} | {outcome.status for outcome in run.outcomes})
    completed = run.status == "completed"
    met = {
        "full": completed and grade.score == grade.max_score,
        "zero": grade.score == 0 and (completed or bool(expectation.labels)),
        "fails": completed and lost == list(expectation.must_fail),
        "label": True,
    }[expectation.score]
    met = met and set(expectation.must_fail) <= set(lost)
    met = met and not set(expectation.keeps) & set(lost)
    met = met and set(expectation.labels) <= set(labels)
    if met:
        return ""
    got = f"status {run.status}, score {grade.score:.2f}"
    got += f", points lost in {', '.join(lost)}" if lost else ""
    got += f", labels seen: {', '.join(labels)}"
    return f"expected {expectation.describe()}, got {got}"


def run_selfcheck(
    expectations: list[Expectation], out: TextIO = sys.stdout, trees: bool = False
) -> list[Expectation]:
    """Grade every expectation's submission and print a line for each; return the failures.

    With `trees`, the intake's attacks (grader/selfcheck/trees.py) are built and graded too.
    """
    course = load_course()
    with (
        temporary_folder("grader-selfcheck-") as folder,
        temporary_folder("grader-selfcheck-trees-") as class_folder,
    ):
        if trees:
            expectations = expectations + tree_expectations(Path(class_folder))
        submissions = [load(_found(e), course) for e in expectations]
        printer = _Printer(expectations, out)
        book = ClassBook(late_settings())
        grade_submissions(submissions, folder, RunSettings(jobs=JOBS), printer, book)
        for student, difference in late_differences(book).items():
            printer.lateness(student, difference)
    return printer.failures


def tree_expectations(folder: Path) -> list[Expectation]:
    """Build the intake's attacks in `folder`; return what each must score."""
    return [
        Expectation(
            tree.found.student,
            Path(tree.found.path),
            tree.attack.score,
            labels=tree.attack.labels,
            summary=tree.attack.summary,
            found=tree.found,
        )
        for tree in build_trees(folder)
    ]


def _found(expectation: Expectation) -> Found:
    if expectation.found is not None:
        return expectation.found
    return Found(expectation.student, str(expectation.path), _kind_of(expectation.path))


class _Printer:
    """Checks each grade as it arrives and prints its line, so progress shows as it runs."""

    def __init__(self, expectations: list[Expectation], out: TextIO) -> None:
        self.by_student = {e.student: e for e in expectations}
        self.out = out
        self.failures: list[Expectation] = []

    def start(self, total: int) -> None:
        self._print(f"Self-check: grading {total} known submissions.")

    def advance(self, grade: Grade) -> None:
        expectation = self.by_student[grade.run.submission.student]
        difference = check(expectation, grade)
        name = (
            f"trees/{expectation.student}" if expectation.found else _shown_path(expectation.path)
        )
        if difference:
            self.failures.append(expectation)
            self._print(f"✗ {name}: {difference}")
            if expectation.summary:
                self._print(f"    {expectation.summary}")
        else:
            self._print(f"✓ {name}: {expectation.describe()}")

    # The self-check grades into a fresh folder, so no result is ever resumed; were one, it
    # would be checked like any other.
    resume = advance

    def lateness(self, student: str, difference: str) -> None:
        """Print whether an attack on the hand-in time got its twin's lateness, and no better."""
        if difference:
            self.failures.append(self.by_student[student])
            self._print(f"✗ trees/{student}: lateness {difference}")
        else:
            self._print(f"✓ trees/{student}: the lateness of its twin, no better")

    def note(self, line: str) -> None:
        """Print a line about something that went wrong while grading."""
        self._print(f"! {line}")

    def _print(self, line: str) -> None:
        print(line, file=self.out, flush=True)


def _shown_path(path: Path) -> str:
    try:
        return path.relative_to(PROJECT_ROOT).as_posix()
    except ValueError:
        return str(path)


def _kind_of(path: Path) -> str:
    if path.is_dir():
        return "lessons"
    return "notebook" if path.suffix == ".ipynb" else "python"


def main(root: Path = SUBMISSIONS) -> int:
    """Run the self-check on the fixtures under `root`.

    Return 0 when every expectation holds, 1 when one does not, and 2 when a fixture's path
    says nothing the self-check understands (the reason is printed on one line).
    """
    try:
        expectations = load_expectations(root)
    except FixtureLayoutError as error:
        print(f"Self-check: {error}", file=sys.stderr)
        return 2
    failures = run_selfcheck(expectations, trees=True)
    if failures:
        print(f"Self-check failed: {len(failures)} submission(s) did not score as expected.")
        return 1
    print("Self-check passed: every submission scored as expected.")
    return 0
