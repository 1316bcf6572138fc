"""Package a student's saved notebooks into one zip to hand in: `python hand_in.py`.

The handout ships this file at its top (tooling/handout.py copies it there). Run it in the
folder the course was unzipped into, or pass that folder (or the lesson folder itself). It
reads the saved notebooks exactly as the grader does, says which steps are finished, and
writes `<assignment>-submission.zip` holding the notebooks and nothing else: no checkpoints,
no history, no other file of the folder.
"""

import argparse
import sys
import zipfile
from pathlib import Path

from course.assemble import read_step
from course.manifest import Course, load_course
from course.status import step_state

ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # a fixed date: the same notebooks give the same zip


def lesson_folder(start: str | Path, course: Course) -> Path | None:
    """Return the folder holding the lesson's notebooks: `start` itself, or its lessons/ folder."""
    for folder in (Path(start), Path(start) / "lessons" / course.assignment):
        if any((folder / step.notebook).is_file() for step in course.all_steps):
            return folder
    return None


def package(
    start: str | Path = ".", out: str | Path | None = None, course: Course | None = None
) -> tuple[Path, list[str]]:
    """Zip the saved notebooks found from `start`; return (zip path, report lines).

    Raise FileNotFoundError, with a sentence for the student, when no notebook is found.
    """
    course = course or load_course()
    folder = lesson_folder(start, course)
    if folder is None:
        raise FileNotFoundError(
            f"No notebook of the lesson was found in {Path(start).resolve()} or in its "
            f"lessons/{course.assignment}/ folder. Run this in the folder you unzipped the "
            "course into."
        )
    lines = []
    for step in course.steps:
        mark, sentences = step_state(read_step(folder, step), folder)
        lines.append(f"{mark} {step.label}: " + " ".join(sentences))
    notebooks = [folder / s.notebook for s in course.all_steps if (folder / s.notebook).is_file()]
    target = Path(out or Path(start) / f"{course.assignment}-submission.zip")
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for notebook in notebooks:
            entry = zipfile.ZipInfo(f"{course.assignment}/{notebook.name}", ZIP_DATE)
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, notebook.read_bytes())
    return target, lines


def main(argv: list[str] | None = None) -> int:
    """Package the notebooks and say what the zip holds; exit 1 with one line if none is found."""
    parser = argparse.ArgumentParser(prog="python hand_in.py", description=__doc__)
    parser.add_argument("folder", nargs="?", default=".", help="where the course was unzipped")
    parser.add_argument("--out", help="the zip to write (default: <assignment>-submission.zip)")
    args = parser.parse_args(argv)
    try:
        target, lines = package(args.folder, args.out)
    except OSError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print("Your saved work, as the grader will read it:")
    print("\n".join(lines))
    unfinished = sum(not line.startswith("✓") for line in lines)
    if unfinished:
        print(f"{unfinished} step(s) need a look before you hand in (✗ or ⚠ above).")
    print(f"Wrote {target}: hand it in as your teacher asks.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
