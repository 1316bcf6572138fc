"""Submissions handed in as zip files: unpacked safely into a scratch folder before discovery.

The handout's `hand_in.py` and the browser site's hand-in cell write `<assignment>-submission.zip`
(course/handin.py); an LMS hands those back as one zip per student. `unpacked` turns each zip
named on the command line into a folder of the same name (the zip's name without `.zip` is the
student id, as a file's name is) holding the lesson's notebooks, and leaves every other path as
it is. Discovery and loading (grader/intake/discover.py, load.py) then read it as any
lessons folder.

A zip is the student's file, so nothing in it is trusted: only notebooks are taken, by a name
that stays inside the folder (no absolute path, no `..`, no hidden name, no link), up to a count
and a size; whatever else it holds is left out and said on stderr. A zip that cannot be read
becomes an empty submission of that student (graded as holding no notebook), never a stop of the
batch.
"""

import contextlib
import stat
import sys
import tempfile
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath

from course.manifest import Course, load_course

MAX_MEMBERS = 200  # files taken from one zip: a lesson is 8 notebooks
MAX_BYTES = 20 * 1024 * 1024  # unpacked bytes taken from one zip, all files together
KEPT_SUFFIXES = (".ipynb",)
CHUNK = 64 * 1024


class _TooLarge(Exception):
    """A zip holds more than MAX_MEMBERS files or MAX_BYTES bytes unpacked."""


@contextlib.contextmanager
def unpacked(paths: Sequence[str]) -> Iterator[list[str]]:
    """Yield `paths` with each zip file replaced by a folder holding what it safely unpacks to.

    The folders live in a scratch folder removed when the block ends, however it ends.
    """
    if not any(is_zip(path) for path in paths):
        yield list(paths)
        return
    course = load_course()
    with tempfile.TemporaryDirectory(prefix="grader-zips-") as scratch:
        result = []
        for number, path in enumerate(paths):
            if is_zip(path):
                target = Path(scratch) / str(number) / Path(path).stem
                unpack(Path(path), target, course)
                result.append(str(target))
            else:
                result.append(path)
        yield result


def is_zip(path: str | Path) -> bool:
    """Return True for a path that names a zip file (by its suffix, in any letter case)."""
    return Path(path).suffix.lower() == ".zip" and Path(path).is_file()


def unpack(archive: Path, target: Path, course: Course) -> None:
    """Unpack the notebooks of `archive` into `target` as a lessons folder; never raise for it.

    What cannot be taken is said on stderr, one line per zip.
    """
    staging = target.with_name(target.name + ".unpacking")
    staging.mkdir(parents=True)
    try:
        left_out = _extract(archive, staging)
    except (zipfile.BadZipFile, _TooLarge, OSError, EOFError, ValueError) as error:
        reason = str(error) if isinstance(error, _TooLarge) else type(error).__name__
        _say(f"{archive.name} could not be unpacked ({reason}): it is graded as holding nothing")
        (target / course.assignment).mkdir(parents=True)
        return
    if left_out:
        _say(
            f"{archive.name}: left out {left_out} entries that are not notebooks or whose "
            "names lead out of the zip's folder"
        )
    lessons = _lessons_folder(staging, course)
    if lessons is None:
        _say(f"{archive.name} holds no notebook of the lesson: it is graded as holding nothing")
        (target / course.assignment).mkdir(parents=True)
        return
    # No file time is set: lateness never comes from file times (grader.gradebook.times).
    lessons.rename(target)


def _extract(archive: Path, staging: Path) -> int:
    """Write the zip's safe notebook members under `staging`; return how many others it had."""
    left_out = taken = total = 0
    with zipfile.ZipFile(archive) as zipped:
        for member in zipped.infolist():
            relative = _safe_name(member)
            if relative is None:
                left_out += not member.is_dir()
                continue
            taken += 1
            if taken > MAX_MEMBERS:
                raise _TooLarge(f"more than {MAX_MEMBERS} files")
            destination = staging / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            with zipped.open(member) as source, destination.open("xb") as copy:
                while chunk := source.read(CHUNK):
                    total += len(chunk)
                    if total > MAX_BYTES:
                        raise _TooLarge(f"more than {MAX_BYTES // (1024 * 1024)} MiB unpacked")
                    copy.write(chunk)
    return left_out


def _safe_name(member: zipfile.ZipInfo) -> Path | None:
    """Return the path a member may be written to, relative to the folder, or None to skip it."""
    if member.is_dir() or stat.S_ISLNK(member.external_attr >> 16):
        return None
    name = PurePosixPath(member.filename)
    parts = name.parts
    unsafe = (
        name.is_absolute()
        or "\\" in member.filename
        or any(part in ("", ".", "..") or part.startswith(".") for part in parts)
        or ":" in member.filename
    )
    if unsafe or name.suffix.lower() not in KEPT_SUFFIXES:
        return None
    return Path(*parts)


def _lessons_folder(staging: Path, course: Course) -> Path | None:
    """Return the shallowest folder under `staging` holding a notebook of the lesson, or None."""
    notebooks = {step.notebook for step in course.all_steps}
    found = sorted(
        (path.parent for path in staging.rglob("*.ipynb") if path.name in notebooks),
        key=lambda folder: len(folder.parts),
    )
    return found[0] if found else None


def _say(line: str) -> None:
    print(f"grader: note: {line}", file=sys.stderr)
