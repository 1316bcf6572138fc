"""Handing in: the saved notebooks in one zip, after the same checks as `check-saved-work`.

`python hand_in.py` (the handout's command line) and step 7's hand-in cell (the one way to hand
in from the browser, where there is no command line) both call `hand_in`: it runs every step's
visible check on the saved notebooks, loaded as the grader loads them, and writes
`<assignment>-submission.zip` holding the notebooks under `<assignment>/` and nothing else, the
layout `python -m grader grade` reads. In a notebook, `offer_hand_in` then shows a link that
downloads the zip, which works in JupyterLab and in the browser-only site alike.
"""

import base64
import html
import zipfile
from dataclasses import dataclass
from pathlib import Path

from course.checks import saved_work_lines
from course.checks.harness import say
from course.manifest import Course, load_course

ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # a fixed date: the same notebooks give the same zip


@dataclass(frozen=True)
class HandIn:
    """A written zip and what the checks said of the notebooks in it."""

    zip_path: Path
    lines: list[str]

    @property
    def failures(self) -> int:
        """How many functions the grader will find unfinished or failing their checks (✗)."""
        return sum(line.startswith("✗") for line in self.lines)


def lesson_folder(start: str | Path, course: Course) -> Path | None:
    """Return the folder holding the lesson's notebooks: `start` itself, or its lessons/ folder."""
    for folder in (Path(start), Path(start) / "lessons" / course.assignment):
        if any((folder / step.notebook).is_file() for step in course.all_steps):
            return folder
    return None


def zip_name(course: Course | None = None) -> str:
    """Return the zip's file name, named after the assignment."""
    return f"{(course or load_course()).assignment}-submission.zip"


def hand_in(start: str | Path = ".", out: str | Path | None = None) -> HandIn:
    """Check the saved notebooks found from `start` and zip them; return what was done.

    Raise FileNotFoundError, with a sentence for the student, when no notebook is found.
    """
    course = load_course()
    folder = lesson_folder(start, course)
    if folder is None:
        raise FileNotFoundError(
            f"No notebook of the lesson was found in {Path(start).resolve()} or in its "
            f"lessons/{course.assignment}/ folder. Run this in the folder you unzipped the "
            "course into."
        )
    lines = saved_work_lines(folder)
    notebooks = [folder / s.notebook for s in course.all_steps if (folder / s.notebook).is_file()]
    target = Path(out or Path(start) / zip_name(course))
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for notebook in notebooks:
            entry = zipfile.ZipInfo(f"{course.assignment}/{notebook.name}", ZIP_DATE)
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, notebook.read_bytes())
    return HandIn(target, lines)


def closing_line(done: HandIn) -> str:
    """Say how many functions need a look before handing in, or that all is well."""
    if done.failures:
        return (
            f"⚠ {done.failures} function(s) marked ✗ above will lose points: fix and save them, "
            "then hand in again."
        )
    return "Every step passes its visible check."


def offer_hand_in(folder: str | Path = ".") -> None:
    """Step 7's hand-in cell: check the saved work, write the zip, show a link downloading it."""
    from IPython.display import HTML, display  # only a notebook cell calls this

    try:
        done = hand_in(folder)
    except OSError as error:
        say(f"✗ The zip could not be written: {error}")
        return
    for line in [*done.lines, closing_line(done)]:
        say(line)
    data = base64.b64encode(done.zip_path.read_bytes()).decode("ascii")
    name = html.escape(done.zip_path.name)
    display(  # type: ignore[no-untyped-call]
        HTML(  # type: ignore[no-untyped-call]
            f'<a class="hand-in-link" download="{name}" '
            f'href="data:application/zip;base64,{data}">Download {name}</a> '
            "(also saved beside the notebooks). Hand that file in as your teacher asks."
        )
    )
