"""Handing in: the saved notebooks in one zip, after the same checks as `check-saved-work`.

`python hand_in.py` (the handout's command line) and step 7's hand-in cell (the one way to hand
in from the browser, where there is no command line) both call `hand_in`: it runs every step's
visible check on the saved notebooks, loaded as the grader loads them, and writes
`<assignment>-submission.zip` holding the notebooks under `<assignment>/`, and `student.json`
with the login the student typed, the layout `python -m grader grade` reads. In a notebook,
`offer_hand_in` then shows a link that downloads the zip, which works in JupyterLab and in the
browser-only site alike.

Every student's zip has the same name, so the zip says whose it is: the login is typed once
(`remember_student`, a cell of hand-in.ipynb, or `hand_in.py --student`) and kept in
`.student.json` beside the notebooks for every later hand-in. It holds the login only: the
grader takes no time or anything else from what a student writes.
"""

import base64
import html
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

from course.checks import saved_work_lines
from course.checks.harness import say
from course.identity import IDENTITY_FILE, MAX_LOGIN, REMEMBERED_FILE
from course.manifest import Course, load_course

ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # a fixed date: the same notebooks give the same zip


@dataclass(frozen=True)
class HandIn:
    """A written zip and what the checks said of the notebooks in it."""

    zip_path: Path
    lines: list[str]
    student: str = ""  # the login the zip names, "" if none

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


def remembered_folder(start: str | Path = ".") -> Path:
    """Return where the login is remembered: the lesson's folder, else `start` itself."""
    return lesson_folder(start, load_course()) or Path(start)


def remember_student(login: str = "", start: str | Path = ".") -> str:
    """Keep `login` (less spaces around it) beside the notebooks; return the login now kept.

    An empty `login` changes nothing and returns the one kept before, or "" if none is.
    Raise ValueError, with a sentence for the student, for a login too long to be one.
    """
    login = clean_login(login)
    path = remembered_folder(start) / REMEMBERED_FILE
    if login:
        path.write_text(json.dumps({"student": login}), encoding="utf-8")
        return login
    return remembered_student(start)


def clean_login(login: str) -> str:
    """Return `login` without spaces around it; ValueError, for the student, if too long.

    Whether it can name a folder of grades is the grader's to say (it names the zip otherwise).
    """
    login = login.strip()
    if len(login) > MAX_LOGIN:
        raise ValueError(f"That is longer than {MAX_LOGIN} characters: type only your login.")
    return login


def remembered_student(start: str | Path = ".") -> str:
    """Return the login kept beside the notebooks, or "" if none is (or it cannot be read)."""
    try:
        kept = json.loads((remembered_folder(start) / REMEMBERED_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return ""
    login = kept.get("student") if isinstance(kept, dict) else None
    return login.strip() if isinstance(login, str) else ""


def hand_in(
    start: str | Path = ".", out: str | Path | None = None, student: str | None = None
) -> HandIn:
    """Check the saved notebooks found from `start` and zip them; return what was done.

    The zip names `student`, else the login remembered beside the notebooks; with neither it
    names no one (the grader then names it from its file name). Raise FileNotFoundError, with
    a sentence for the student, when no notebook is found, and ValueError for a login too
    long to be one.
    """
    course = load_course()
    folder = lesson_folder(start, course)
    if folder is None:
        raise FileNotFoundError(
            f"No notebook of the lesson was found in {Path(start).resolve()} or in its "
            f"lessons/{course.assignment}/ folder. Run this in the folder you unzipped the "
            "course into."
        )
    login = clean_login(student or "") or remembered_student(start)
    lines = saved_work_lines(folder)
    notebooks = [folder / s.notebook for s in course.all_steps if (folder / s.notebook).is_file()]
    target = Path(out or Path(start) / zip_name(course))
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for notebook in notebooks:
            _add(archive, f"{course.assignment}/{notebook.name}", notebook.read_bytes())
        if login:
            _add(archive, IDENTITY_FILE, json.dumps({"student": login}).encode("utf-8"))
    return HandIn(target, lines, login)


def _add(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    """Add one entry with a fixed date, so the same work always gives the same zip."""
    entry = zipfile.ZipInfo(name, ZIP_DATE)
    entry.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(entry, data)


def closing_line(done: HandIn) -> str:
    """Say how many functions need a look before handing in, or that all is well."""
    if done.failures:
        return (
            f"⚠ {done.failures} function(s) marked ✗ above will lose points: fix and save them, "
            "then hand in again."
        )
    return "Every step passes its visible check."


def student_line(done: HandIn) -> str:
    """Say whom the zip names, or how to make it name the student."""
    if done.student:
        return f"The zip names you as {done.student!r}."
    return (
        "⚠ The zip does not say who you are: type your login in the cell above this one "
        "(or give `--student YOUR_LOGIN` to hand_in.py), run it, then hand in again."
    )


def set_student(login: str = "", folder: str | Path = ".") -> None:
    """hand-in.ipynb's login cell: keep the login typed between its quotes, say whom zips name."""
    try:
        kept = remember_student(login, folder)
    except ValueError as error:
        say(f"⚠ {error}")
        return
    except OSError as error:
        say(f"⚠ Your login could not be kept beside your notebooks: {error}")
        return
    if kept:
        say(
            f"Your zip will name you as {kept!r} (kept beside your notebooks, so you need not "
            "type it again; to change it, type another login between the quotes)."
        )
    else:
        say(
            "⚠ Type your login between the quotes above, as your teacher knows you, and run "
            "this cell."
        )


def offer_hand_in(folder: str | Path = ".") -> None:
    """Step 7's hand-in cell: check the saved work, write the zip, show a link downloading it."""
    from IPython.display import HTML, display  # only a notebook cell calls this

    try:
        done = hand_in(folder)
    except OSError as error:
        say(f"✗ The zip could not be written: {error}")
        return
    for line in [*done.lines, closing_line(done), student_line(done)]:
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
