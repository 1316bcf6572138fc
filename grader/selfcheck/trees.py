"""The self-check's attacks on the intake: submissions made of links, pipes and devices.

A fixture file cannot hold a symbolic link to the course's solutions, a named pipe or a device
node, so these are built at run time, in a class folder of their own, and graded in the same
batch as the catalogue (grader/selfcheck/catalogue.py). Each is a student's folder whose
notebooks are not the student's own files: it must score nothing, as its twin, the untouched
lessons, does, and be told why. The classmate it copies from is graded beside it, at full marks.

    with temporary_folder() as folder:
        for tree in build_trees(Path(folder)):   # Tree(expectation, found)
            ...
"""

import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from course.manifest import Course, load_course
from grader.gradebook.book import ClassBook, GradebookSettings
from grader.gradebook.late import LatePolicy
from grader.gradebook.times import TIMESTAMP_FILE, receipt_text
from grader.intake.discover import Found, discover
from grader.paths import LESSONS, SOLUTIONS

CLASSMATE = "trees-classmate"  # a student who did the work, and whom the attacks copy
LATE_TWIN = "trees-late-twin"  # the honest twin of the attacks on the hand-in time
# The size of the huge notebook: far over the cap, and sparse, so it takes no disk.
HUGE_BYTES = 300_000_000


@dataclass(frozen=True)
class TreeAttack:
    """One attack: the student folder's name, what it does, and what it must score."""

    name: str
    summary: str
    score: str  # "full" or "zero", as grader.selfcheck.expectations.Expectation says
    labels: tuple[str, ...] = ()
    needs_root: bool = False
    # For an attack on the hand-in time: the student whose lateness it must equal.
    late_twin: str = ""


@dataclass(frozen=True)
class Tree:
    """A built attack (or the classmate) and the Found discovery gave its folder."""

    attack: TreeAttack
    found: Found


ATTACKS = (
    TreeAttack(CLASSMATE, "A classmate's finished lessons, which the attacks below copy.", "full"),
    TreeAttack(
        "trees-links-to-solutions",
        "Every notebook is a link to the course's solution notebook of its step.",
        "zero",
        ("unreadable",),
    ),
    TreeAttack(
        "trees-links-to-classmate",
        "Every notebook is a link to a classmate's notebook (../trees-classmate/...).",
        "zero",
        ("unreadable",),
    ),
    TreeAttack(
        "trees-hard-links-to-solutions",
        "Every notebook is a hard link to the course's solution notebook of its step.",
        "zero",
        ("unreadable",),
    ),
    TreeAttack(
        "trees-linked-folder",
        "The student's folder itself is a link to a classmate's folder.",
        "zero",
        ("unreadable",),
    ),
    TreeAttack(
        "trees-linked-assignment",
        "An nbgrader student folder whose assignment folder links to a classmate's.",
        "zero",
        ("unreadable",),
    ),
    TreeAttack(
        "trees-pipe-notebook",
        "The untouched lessons, with step 7's notebook a named pipe that never ends.",
        "zero",
        ("error",),  # without step 7 there is no invoke_tool to call
    ),
    TreeAttack(
        "trees-device-notebook",
        "The untouched lessons, with step 7's notebook the device /dev/zero.",
        "zero",
        ("error",),
        needs_root=True,
    ),
    TreeAttack(
        "trees-huge-notebook",
        "The untouched lessons, with step 1's notebook 300 MB long.",
        "zero",
    ),
    TreeAttack(
        LATE_TWIN,
        "A classmate's finished lessons, handed in 5 hours late (the instructor's time says).",
        "full",
    ),
    TreeAttack(
        "trees-late-own-timestamp",
        "Handed in as late, with a timestamp.txt of its own dated years before the due date.",
        "full",
        late_twin=LATE_TWIN,
    ),
    TreeAttack(
        "trees-late-old-file-times",
        "Handed in as late, with every file's modification time set back before the due date.",
        "full",
        late_twin=LATE_TWIN,
    ),
    TreeAttack(
        "trees-nested-receipt",
        "Its folder holds submitted/<itself>/bounded_results/ with a receipt dated years early.",
        "full",
        late_twin=CLASSMATE,  # with no trusted time, as the classmate has none
    ),
)
# The late policy the self-check grades with: only the attacks on the hand-in time have a
# trusted time (HANDED_IN, after DUE); every other submission has none and is never late.
DUE = datetime(2026, 3, 1, 23, 59, tzinfo=UTC)
HANDED_IN = DUE + timedelta(hours=5)
EARLY = DUE - timedelta(days=2000)


def build_trees(folder: Path, course: Course | None = None) -> list[Tree]:
    """Build every attack this user can build in `folder`; return them as discovery finds them."""
    course = course or load_course()
    lessons = _lessons_folder()
    attacks = [a for a in ATTACKS if not a.needs_root or os.geteuid() == 0]
    builders: dict[str, Callable[[Path], object]] = {
        CLASSMATE: lambda place: shutil.copytree(SOLUTIONS / course.assignment, place),
        "trees-links-to-solutions": lambda place: _links(
            place, course, lambda name: SOLUTIONS / course.assignment / name
        ),
        "trees-links-to-classmate": lambda place: _links(
            place, course, lambda name: Path("..", CLASSMATE, name)
        ),
        "trees-hard-links-to-solutions": lambda place: _hard_links(place, course),
        "trees-linked-folder": lambda place: place.symlink_to(CLASSMATE),
        "trees-linked-assignment": lambda place: _linked_assignment(place, course),
        "trees-pipe-notebook": lambda place: _lessons_with(
            place, lessons, course.steps[-1].notebook, os.mkfifo
        ),
        "trees-device-notebook": lambda place: _lessons_with(
            place, lessons, course.steps[-1].notebook, _zero_device
        ),
        "trees-huge-notebook": lambda place: _lessons_with(
            place, lessons, course.steps[0].notebook, _huge_file
        ),
        LATE_TWIN: lambda place: shutil.copytree(SOLUTIONS / course.assignment, place),
        "trees-late-own-timestamp": lambda place: _with_receipt(place, course, nested=False),
        "trees-late-old-file-times": lambda place: _old_file_times(place, course),
        "trees-nested-receipt": lambda place: _with_receipt(place, course, nested=True),
    }
    built = []
    for attack in attacks:
        try:
            builders[attack.name](folder / attack.name)
        except _CannotBuild:
            continue
        built.append(attack)
    by_student = {found.student: found for found in discover([folder], course)}
    return [Tree(attack, by_student[attack.name]) for attack in built]


class _CannotBuild(Exception):
    """This host cannot build the attack (a hard link across disks, say): it is left out."""


def _lessons_folder() -> Path:
    """Return the folder holding the generated lesson notebooks, however lessons/ nests it."""
    return Path(discover([LESSONS])[0].path)


def _links(place: Path, course: Course, target: Callable[[str], Path]) -> None:
    place.mkdir()
    for step in course.steps:
        (place / step.notebook).symlink_to(target(step.notebook))


def _hard_links(place: Path, course: Course) -> None:
    """Make each notebook a hard link to the solution's, where this disk and kernel allow it."""
    place.mkdir()
    try:
        for step in course.steps:
            os.link(SOLUTIONS / course.assignment / step.notebook, place / step.notebook)
    except OSError:  # another disk, or protected_hardlinks for a user who does not own them
        shutil.rmtree(place)
        raise _CannotBuild from None


def _linked_assignment(place: Path, course: Course) -> None:
    place.mkdir()
    (place / course.assignment).symlink_to(Path("..", CLASSMATE))


def _lessons_with(place: Path, lessons: Path, notebook: str, make: Callable[[Path], None]) -> None:
    """Copy the untouched lessons to `place`, then make `notebook` with `make` instead."""
    shutil.copytree(lessons, place)
    (place / notebook).unlink()
    make(place / notebook)


def late_settings() -> GradebookSettings:
    """Return the gradebook the self-check grades with: a zero policy, times for the late ones."""
    late = [a.name for a in ATTACKS if a.late_twin == LATE_TWIN] + [LATE_TWIN]
    return GradebookSettings(
        policy=LatePolicy(DUE, "zero"), submitted_at=dict.fromkeys(late, HANDED_IN)
    )


def late_differences(book: ClassBook) -> dict[str, str]:
    """Return, for each attack on the hand-in time, how its lateness differed from its twin's.

    "" when it met the twin: the same hand-in time and final score, so it gained nothing.
    """
    differences = {}
    for attack in ATTACKS:
        summary, twin = book.summary(attack.name), book.summary(attack.late_twin)
        if not attack.late_twin or summary is None or twin is None:
            continue
        got = (summary.submitted or "no time", summary.final_score)
        wanted = (twin.submitted or "no time", twin.final_score)
        differences[attack.name] = "" if got == wanted else f"{got} where its twin got {wanted}"
    return differences


def _with_receipt(place: Path, course: Course, nested: bool) -> None:
    """Copy the solutions into `place` (nested as nbgrader's tree), with an early timestamp."""
    folder = place / "submitted" / place.name / course.assignment if nested else place
    shutil.copytree(SOLUTIONS / course.assignment, folder)
    (folder / TIMESTAMP_FILE).write_text(receipt_text(EARLY), encoding="utf-8")


def _old_file_times(place: Path, course: Course) -> None:
    shutil.copytree(SOLUTIONS / course.assignment, place)
    for path in [place, *place.iterdir()]:
        os.utime(path, (EARLY.timestamp(), EARLY.timestamp()))


def _zero_device(path: Path) -> None:
    os.mknod(path, stat.S_IFCHR | 0o644, os.makedev(1, 5))


def _huge_file(path: Path) -> None:
    with path.open("wb") as stream:
        stream.truncate(HUGE_BYTES)
