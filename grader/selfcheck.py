"""Self-check: grade the fixture catalogue through the real pipeline and compare with expectations.

`python -m grader selfcheck` prints one line per submission (✓ or ✗ and what differed) and
exits 1 if any expectation fails. The test suite runs it too, so the grader is held to known
answers: the reference scores full marks, the untouched lessons score 0, each buggy
submission loses points in exactly its category, and each adversarial one gets its label.
"""

import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from course.assemble import load_course
from grader.discover import Found, discover
from grader.load import load
from grader.model import Grade
from grader.paths import LESSONS, PROJECT_ROOT, SUBMISSIONS
from grader.pipeline import grade_submissions
from grader.run import RunSettings
from grader.sandbox.cleanup import temporary_folder

CATALOGUE = SUBMISSIONS / "catalogue.toml"
REFERENCE = SUBMISSIONS / "correct" / "reference.py"
JOBS = 2


@dataclass(frozen=True)
class Expectation:
    """What one fixture submission must score, and the statuses its run must show.

    `score` is "full" (every point, run completed), "zero" (no point; the run completed unless
    labels say how it ended), "fails" (points lost in exactly the categories of `must_fail`,
    run completed) or "label" (any score, as long as every status of `labels` appears).
    Whatever the kind, every category of `must_fail` loses points and every one of `keeps`
    gets full marks.
    """

    student: str
    path: Path
    score: str
    must_fail: tuple[str, ...] = ()
    keeps: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()

    def describe(self) -> str:
        """Return the expectation in a few words, for the self-check's output."""
        wording = {
            "full": "full marks",
            "zero": "a score of 0",
            "fails": f"points lost in {', '.join(self.must_fail)} only",
            "label": "",
        }
        parts = [wording[self.score], f"label {', '.join(self.labels)}" if self.labels else ""]
        return " with ".join(part for part in parts if part)


def load_expectations(catalogue: str | Path = CATALOGUE) -> list[Expectation]:
    """Return the expectations: the catalogue's entries, the reference and the untouched lessons."""
    expectations = [
        Expectation("reference", REFERENCE, "full"),
        Expectation("untouched-lessons", _lessons_folder(), "zero"),
    ]
    data = tomllib.loads(Path(catalogue).read_text(encoding="utf-8"))
    for entry in data["submission"]:
        path = SUBMISSIONS / entry["path"]
        if path != REFERENCE:
            expectations.append(_expectation(entry, path))
    return expectations


def _expectation(entry: dict[str, Any], path: Path) -> Expectation:
    """Build one Expectation from a catalogue entry (its format is described in the file)."""
    single = [entry.get("category")] if entry["expect"] == "fails" else []
    labels = [entry.get("label"), *entry.get("labels", [])]
    return Expectation(
        # Nested paths are unique, so they make unique student ids.
        student=Path(entry["path"]).with_suffix("").as_posix().replace("/", "-"),
        path=path,
        score=entry["expect"],
        must_fail=tuple(sorted({*entry.get("must_fail", []), *filter(None, single)})),
        keeps=tuple(entry.get("keeps", [])),
        labels=tuple(sorted(set(filter(None, labels)))),
    )


def _lessons_folder() -> Path:
    """Return the folder holding the generated lesson notebooks, however lessons/ nests it."""
    return discover([LESSONS])[0].path


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


def run_selfcheck(expectations: list[Expectation], out: TextIO = sys.stdout) -> list[Expectation]:
    """Grade every expectation's submission and print a line for each; return the failures."""
    course = load_course()
    submissions = [load(Found(e.student, e.path, _kind_of(e.path)), course) for e in expectations]
    printer = _Printer(expectations, out)
    with temporary_folder("grader-selfcheck-") as folder:
        grade_submissions(submissions, folder, RunSettings(jobs=JOBS), printer)
    return printer.failures


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
        name = _shown_path(expectation.path)
        if difference:
            self.failures.append(expectation)
            self._print(f"✗ {name}: {difference}")
        else:
            self._print(f"✓ {name}: {expectation.describe()}")

    # The self-check grades into a fresh folder, so no result is ever resumed; were one, it
    # would be checked like any other.
    resume = advance

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


def main() -> int:
    """Run the self-check; return 0 when every expectation holds, else 1."""
    failures = run_selfcheck(load_expectations())
    if failures:
        print(f"Self-check failed: {len(failures)} submission(s) did not score as expected.")
        return 1
    print("Self-check passed: every submission scored as expected.")
    return 0
