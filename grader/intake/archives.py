"""A hand-in zip's content: its notebooks unpacked safely, and the login its student.json names.

The handout's `hand_in.py` and the browser site's hand-in cell write `<assignment>-submission.zip`
(course/handin.py) with the student's login in `student.json`; an LMS hands those back as one
zip per student. grader/intake/handins.py reads each zip once (its bytes, from the instructor's
disk) and, through this module, unpacks its notebooks into a scratch folder that loading
(grader/intake/load.py) reads as any lessons folder, and reads the login that names it.

A zip is the student's file, so nothing in it is trusted: only notebooks are taken, by a name
that stays inside the folder (no absolute path, no `..`, no hidden name, no link), up to a count
and a size; whatever else it holds is left out and said on stderr. A zip that cannot be read
becomes an empty submission of that student (graded as holding no notebook), never a stop of the
batch.
"""

import io
import json
import stat
import sys
import zipfile
from pathlib import Path, PurePosixPath

from course.identity import IDENTITY_FILE
from course.manifest import Course

MAX_MEMBERS = 200  # files taken from one zip: a lesson is 8 notebooks
MAX_BYTES = 20 * 1024 * 1024  # unpacked bytes taken from one zip, all files together
KEPT_SUFFIXES = (".ipynb",)
CHUNK = 64 * 1024
IDENTITY_BYTES = 4096  # a login in JSON; anything larger is not one


class _TooLarge(Exception):
    """A zip holds more than MAX_MEMBERS files or MAX_BYTES bytes unpacked."""


# What zipfile raises for a zip it cannot read: damaged, cut short, encrypted (RuntimeError),
# or packed by a method it does not know (NotImplementedError). Each is that student's alone.
_BROKEN = (
    zipfile.BadZipFile,
    _TooLarge,
    OSError,
    EOFError,
    ValueError,
    RuntimeError,
    NotImplementedError,
)


def identity(data: bytes) -> tuple[str, str]:
    """Return the login the zip's student.json names, and "" or what makes it unusable.

    Only the login is read: nothing else a student writes (no time, no other field) is used.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zipped:
            info = zipped.getinfo(IDENTITY_FILE)
            if info.file_size > IDENTITY_BYTES:
                return "", f"is larger than {IDENTITY_BYTES} bytes"
            with zipped.open(info) as stream:
                text = stream.read(IDENTITY_BYTES + 1)
    except KeyError:
        return "", "is not in it"
    except _BROKEN as error:
        return "", f"cannot be read ({type(error).__name__})"
    try:
        login = json.loads(text.decode("utf-8")).get("student")
    except (ValueError, AttributeError):
        return "", 'is not JSON of the form {"student": "login"}'
    if not isinstance(login, str) or not login.strip():
        return "", "names no student"
    return login.strip(), ""


def unpack(data: bytes, name: str, target: Path, course: Course) -> None:
    """Unpack the notebooks of the zip `data`, found as `name`, into the lessons folder `target`.

    Never raise for what the zip holds: what cannot be taken is said on stderr, one line per zip.
    """
    staging = target.with_name(target.name + ".unpacking")
    staging.mkdir(parents=True)
    try:
        left_out = _extract(data, staging)
    except _BROKEN as error:
        reason = str(error) if isinstance(error, _TooLarge) else type(error).__name__
        _say(f"{name} could not be unpacked ({reason}): it is graded as holding nothing")
        (target / course.assignment).mkdir(parents=True)
        return
    if left_out:
        _say(
            f"{name}: left out {left_out} entries that are not notebooks or whose "
            "names lead out of the zip's folder"
        )
    lessons = _lessons_folder(staging, course)
    if lessons is None:
        _say(f"{name} holds no notebook of the lesson: it is graded as holding nothing")
        (target / course.assignment).mkdir(parents=True)
        return
    # No file time is set: lateness never comes from file times (grader.gradebook.times).
    lessons.rename(target)


def _extract(data: bytes, staging: Path) -> int:
    """Write the zip's safe notebook members under `staging`; return how many others it had."""
    left_out = taken = total = 0
    with zipfile.ZipFile(io.BytesIO(data)) as zipped:
        for member in zipped.infolist():
            relative = _safe_name(member)
            if relative is None:
                # The login file is read on its own (identity), not left out of the grading.
                left_out += not member.is_dir() and member.filename != IDENTITY_FILE
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
