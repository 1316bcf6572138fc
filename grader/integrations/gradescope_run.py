"""Inside Gradescope's image: grade one submission, or check the image before students submit.

    python -m grader.integrations.gradescope_run [ROOT]             what run_autograder runs
    python -m grader.integrations.gradescope_run selfcheck [ROOT]   what setup.sh runs last

ROOT is /autograder unless given. The isolation the bundle requires
(grader/integrations/gradescope.py) is checked before anything is written (the self-check checks
it first): where it cannot be had, both commands fail with one line and write no result, so
Gradescope reports a failed autograder instead of a grade earned under weaker isolation.
"""

import contextlib
import json
import math
import posixpath
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from course.manifest import Course, load_course
from grader.batch.run import RunSettings
from grader.intake.discover import Found
from grader.intake.untrusted import Folder, Refused
from grader.integrations.gradescope import SELFCHECK_FILES, SELFCHECK_FOLDER, BundleSettings
from grader.integrations.gradescope_results import gradescope_results
from grader.integrations.visible_checks import VisibleCheck, checks_server, visible_checks_beside
from grader.model import Grade, Limits, Submission
from grader.outputs import write_atomically
from grader.pipeline import grade_submissions, load_safely
from grader.reports.grade_files import results_json
from grader.sandbox import containment, wording
from grader.sandbox.cleanup import temporary_folder

DEFAULT_ROOT = Path("/autograder")
STUDENT = "submission"
# Gradescope's image grades one submission at a time, and a slow container should not cost points.
JOBS = 1
TIMEOUT = 30.0
NOTHING_FOUND = (
    "No lesson notebook or .py file was found in your submission. Upload your saved notebooks "
    "01 to 07 from lessons/bounded_results (or one .py file that defines invoke_tool) and "
    "submit again."
)


def find_student_work(folder: str | Path, course: Course | None = None) -> Found | None:
    """Return a Found for the student's work in Gradescope's submission folder, or None.

    Students upload their lessons folder, some of its notebooks, one notebook or a .py file,
    and Gradescope keeps whatever folders they uploaded. A folder of lesson notebooks is
    preferred, then a notebook, then a .py file; a regular file before anything else, then the
    shallowest, then the first by name. The upload is searched without following links (a
    link found is the student's result, refused when it is loaded), and within bounds.
    """
    course = course or load_course()
    try:
        with Folder.open(str(folder)) as upload:
            entries = [entry for entry in upload.search() if _visible(entry.path)]
    except (OSError, Refused):
        return None
    paths = {entry.path for entry in entries}
    folders = ["", *(entry.path for entry in entries if entry.kind == "folder")]
    for candidate in folders:  # the search lists them shallowest first, then by name
        if any(posixpath.join(candidate, step.notebook) in paths for step in course.steps):
            return Found(STUDENT, str(Path(folder, candidate)), "lessons", str(folder))
    for suffix, kind in ((".ipynb", "notebook"), (".py", "python")):
        files = sorted(
            (e for e in entries if e.path.lower().endswith(suffix) and e.kind != "folder"),
            key=lambda e: (e.kind != "file", e.depth, e.path),
        )
        if files:
            return Found(STUDENT, str(Path(folder, files[0].path)), kind, str(folder))
    return None


def _visible(path: str) -> bool:
    """Say whether `path` is worth grading: no hidden, checkpoint or macOS metadata part."""
    return not any(part.startswith((".", "_")) for part in path.split("/"))


def required_isolation(settings: BundleSettings) -> containment.Isolation:
    """Return the isolation the bundle requires; RuntimeError (one line) if it cannot be had."""
    return containment.isolation_here(settings.isolation)


class IsolationUnavailable(RuntimeError):
    """The isolation the bundle requires cannot be had here: no grade is written."""


def run_settings(settings: BundleSettings) -> RunSettings:
    """Return how to run: one job, a generous time limit, the isolation the bundle requires."""
    limits = Limits.scaled(TIMEOUT)
    return RunSettings(jobs=JOBS, limits=limits, isolation=settings.isolation)


def autograde(root: str | Path = DEFAULT_ROOT, settings: BundleSettings | None = None) -> Grade:
    """Grade root/submission and write root/results/results.json; return the Grade.

    The visible checks' fork server is set up first, under the bundle's isolation: where that
    cannot be had, IsolationUnavailable is raised and nothing is graded or written. The grading
    job enforces the same isolation on its own, so it grades under no other. The visible checks
    run beside the grading, on the other processor.
    """
    started = time.monotonic()
    root = Path(root)
    settings = settings or BundleSettings.read(root / "source")
    with contextlib.ExitStack() as stack:
        try:
            server = stack.enter_context(checks_server(settings.isolation))
        except RuntimeError as error:
            raise IsolationUnavailable(str(error)) from None
        course = load_course()
        submission = _uploaded(root, course)
        with (
            visible_checks_beside(submission, course, server) as visible_checks,
            temporary_folder("gradescope-") as work,
        ):
            kept = _KeepGrades()
            grade_submissions([submission], work, run_settings(settings), kept)
            [grade] = kept.grades
            try:
                results = (work / STUDENT / "results.json").read_text(encoding="utf-8")
            except OSError:
                # The pipeline could not write the file; the grade it returned still says why.
                results = results_json(grade, course)
            checked = _joined(visible_checks)
        isolation = server.isolation
    if isinstance(checked, BaseException):
        raise checked
    document = gradescope_results(results, grade, settings, course, checked)
    document["execution_time"] = math.ceil(time.monotonic() - started)
    document["extra_data"] = {"isolation": wording.describe(isolation)}
    text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    write_atomically(root / "results" / "results.json", text)
    return grade


def _uploaded(root: Path, course: Course) -> Submission:
    """Return the submission in root/submission, loaded, or one saying nothing was found."""
    found = find_student_work(root / "submission", course)
    if found is None:
        return Submission(
            STUDENT, str(root / "submission"), "lessons", units=(), error=NOTHING_FOUND
        )
    return load_safely(found, course)


def _joined(checks: Callable[[], list[VisibleCheck]]) -> list[VisibleCheck] | BaseException:
    """Return the visible checks once done, or what they raised (said once the verdict is in)."""
    try:
        return checks()
    except Exception as error:
        return error


class _KeepGrades:
    """Progress that keeps each student's full Grade (the pipeline returns summaries)."""

    def __init__(self) -> None:
        self.grades: list[Grade] = []

    def start(self, _total: int) -> None:
        pass

    def advance(self, grade: Grade) -> None:
        self.grades.append(grade)

    resume = advance


def selfcheck(
    root: str | Path,
    settings: BundleSettings,
    isolation: containment.Isolation,
    out: TextIO = sys.stdout,
) -> int:
    """Grade the bundle's reference and its disk searcher and honest twin; return the exit code.

    The reference must earn every point, and the searcher no more than its twin: the hidden
    tests and the reference, in root/source, must be out of student code's reach.
    """
    root = Path(root)
    print(f"Python {sys.version.split()[0]} at {sys.executable}", file=out)
    print(f"Isolation: {wording.describe(isolation)}", file=out)
    course = load_course()
    folder = root / "source" / SELFCHECK_FOLDER
    submissions = [
        load_safely(Found(Path(name).stem, str(folder / name), "python"), course)
        for name in SELFCHECK_FILES
    ]
    with temporary_folder("gradescope-selfcheck-") as work:
        grades = grade_submissions(submissions, work, run_settings(settings))
    by_student = {summary.student: summary for summary in grades}
    reference = by_student["reference"]
    searcher = by_student["searches-disk-for-hidden-tests"]
    twin = by_student["honest-twin"]
    verdicts = [
        (
            reference.status == "completed" and reference.score == reference.max_score,
            f"the reference solution scores {reference.score:.2f} out of "
            f"{reference.max_score:.2f} (status {reference.status})",
        ),
        (
            searcher.score <= twin.score,
            f"the submission that searches the disk for the hidden tests scores "
            f"{searcher.score:.2f}, its honest twin {twin.score:.2f}",
        ),
    ]
    for passed, line in verdicts:
        print(f"{'✓' if passed else '✗'} {line}", file=out)
    if all(passed for passed, _ in verdicts):
        print("Self-check passed: this image grades correctly and safely.", file=out)
        return 0
    print("Self-check failed: do not use this image to grade students.", file=out)
    return 1


def main(argv: list[str] | None = None) -> int:
    """Grade the submission, or run the self-check, under the root given; return the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    checking = bool(argv) and argv[0] == "selfcheck"
    rest = argv[1:] if checking else argv
    root = Path(rest[0]) if rest else DEFAULT_ROOT
    # A bad bundle, or the isolation it requires cannot be had here: no grade is better than a
    # wrong one, so Gradescope shows a failed autograder, not a score.
    try:
        settings = BundleSettings.read(root / "source")
        isolation = required_isolation(settings) if checking else None
    except (RuntimeError, ValueError) as error:
        return _failed(error)
    if isolation is not None:
        return selfcheck(root, settings, isolation)
    try:
        grade = autograde(root, settings)
    except IsolationUnavailable as error:
        return _failed(error)
    # Gradescope shows this output to instructors only, to debug a run.
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    print(f"Graded {grade.run.submission.path}: {grade.score:.2f} out of {grade.max_score:.2f}")
    print(f"Run status: {grade.run.status}")
    print(f"Isolation: {results['extra_data']['isolation']}")
    return 0


def _failed(error: Exception) -> int:
    """Say in one line why nothing was graded; return the exit code of a failed autograder."""
    print(f"grader: error: {error}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
