"""Report step: write grades.csv, and each student's results.json and feedback pages.

Every file is written atomically, and the grade files hold nothing that changes between runs
(no timings, no timestamps, fixed key order and number format), so grading the same
submissions twice gives byte-identical grades.csv and results.json.
"""

import contextlib
import io
import json
import os
import tempfile
from _json import encode_basestring, make_encoder
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from course.manifest import Course
from grader.gradebook.store import in_student_order
from grader.gradebook.summary import StudentSummary
from grader.model import CATEGORIES, Grade
from grader.reports import feedback, hidden_entries, spreadsheet

# More columns for grades.csv: their names, and what gives a student's cells for them.
Columns = tuple[Sequence[str], Callable[[str], Sequence[str]]]

GRADES_FILE = "grades.csv"
TIMINGS_FILE = "timings.json"
# The most a report file or folder may allow: its owner and the instructor's group may read it,
# the world never (a shared course folder must not hand grades to every user); the umask can
# only take more away.
FILE_MODE = 0o640
FOLDER_MODE = 0o750


def write_atomically(path: str | Path, text: str) -> None:
    """Write `text` to `path` so readers see the old file or the new one, never half of one."""
    with atomic_writer(path) as stream:
        stream.write(text)


@contextlib.contextmanager
def atomic_writer(path: str | Path) -> Iterator[TextIO]:
    """Yield a text stream whose content replaces `path` at once when the block ends.

    For a file too large to build as one string: readers see the old file or the new one,
    never half of one, and a block that raises leaves the old file as it was.
    """
    path = Path(path)
    make_folder(path.parent)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp makes the file private (0600); a report may be read by the instructor's group
        # (FILE_MODE) unless the umask takes that away too.
        os.fchmod(handle, FILE_MODE & ~_umask())
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            yield stream
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def make_folder(folder: str | Path) -> None:
    """Create `folder` and any missing parent as FOLDER_MODE (less what the umask takes away).

    A folder that already exists keeps its mode: the instructor chose it.
    """
    folder = Path(folder)
    missing: list[Path] = []
    while not folder.is_dir():
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    for created in reversed(missing):
        # mkdir applies the umask to FOLDER_MODE itself.
        with contextlib.suppress(FileExistsError):
            created.mkdir(mode=FOLDER_MODE)


def _umask() -> int:
    """Return the process's umask (reading it means setting it, so it is put straight back)."""
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def grades_csv(summaries: Iterable[StudentSummary], columns: Columns | None = None) -> str:
    """Return the text of grades.csv: one row per student (a StudentSummary), by student id.

    `columns`, if given, is (names, cells_for): more columns after status, and a function
    giving a student's cells for them (the gradebook's late penalty and comment).
    """
    buffer = io.StringIO()
    _write_grades_rows(buffer, summaries, columns)
    return buffer.getvalue()


def _write_grades_rows(
    stream: TextIO, summaries: Iterable[StudentSummary], columns: Columns | None
) -> None:
    names, cells_for = columns or ((), lambda _student: ())
    writer = spreadsheet.writer(stream)
    writer.writerow(["student", "score", "max_score", *CATEGORIES, "status", *names])
    for summary in in_student_order(summaries):
        writer.writerow(
            [
                summary.student,
                feedback.format_points(summary.score),
                feedback.format_points(summary.max_score),
                *map(feedback.format_points, summary.points),
                summary.status,
                *(cells_for(summary.student) if names else ()),
            ]
        )


def results_json(grade: Grade, course: Course | None = None) -> str:
    """Return the text of one student's results.json, in Gradescope's autograder format.

    Its tests are the hidden tests, one entry each with its cases' points (hidden_entries).
    """
    document = {
        "score": grade.score,
        "output": summary(grade),
        "visibility": "visible",
        "tests": hidden_entries.entries(grade, course),
    }
    return readable_json(document)


def readable_json(document: Mapping[str, Any]) -> str:
    """Return JSON text for a dict, one line per field and per item of a list field.

    As readable as indented JSON where it matters (one test per line), but every piece goes
    through json's C encoder: indenting goes through its pure-Python one, which cost a class of
    hundreds of students seconds of the grader's time.
    """
    fields = []
    for key in sorted(document):
        value = document[key]
        if isinstance(value, list) and value:
            items = ",\n    ".join(_compact(item) for item in value)
            fields.append(f"  {_compact(key)}: [\n    {items}\n  ]")
        else:
            fields.append(f"  {_compact(key)}: {_compact(value)}")
    return "{\n" + ",\n".join(fields) + "\n}\n"


def _refuse(value: object) -> object:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# One encoder for every piece, json's C one itself: JSONEncoder.encode builds a new one, with a
# table of the ids it has seen, at each of the calls a student's file makes (one per test). A
# report is a tree built here, so nothing needs that table.
_COMPACT = make_encoder(None, _refuse, encode_basestring, None, ": ", ", ", True, False, True)


def _compact(value: object) -> str:
    return "".join(_COMPACT(value, 0))


def summary(grade: Grade) -> str:
    """Return a few sentences summing up one student's result."""
    run = grade.run
    score = feedback.format_points(grade.score)
    top = feedback.format_points(grade.max_score)
    lines = [f"You scored {score} out of {top}."]
    lines += [text for text in (run.reason, run.submission.error) if text]
    lines += list(run.submission.problems)
    if run.status != "completed":
        lines.append("Grading stopped early for that reason: fix it first, then submit again.")
    elif grade.score < grade.max_score:
        lines.append("See the tests below for what to revisit in the lesson.")
    else:
        lines.append("Every hidden test passed. Well done.")
    return "\n".join(dict.fromkeys(lines))


def write_student(grade: Grade, out_dir: str | Path, course: Course | None = None) -> None:
    """Write one student's results.json, feedback.md and feedback.html under `out_dir`."""
    student = grade.run.submission.student
    folder = Path(out_dir) / student
    write_atomically(folder / "results.json", results_json(grade, course))
    blocks = feedback.feedback_blocks(grade, course)
    write_atomically(folder / "feedback.md", feedback.render_markdown(blocks))
    title = f"Feedback for {student}"
    write_atomically(folder / "feedback.html", feedback.render_html(blocks, title))


def write_grades(
    summaries: Iterable[StudentSummary], out_dir: str | Path, columns: Columns | None = None
) -> None:
    """Write grades.csv for every graded student (with more `columns`, as grades_csv says).

    Written a row at a time, so a class read from disk (grader.gradebook.store) is never held.
    """
    with atomic_writer(Path(out_dir) / GRADES_FILE) as stream:
        _write_grades_rows(stream, summaries, columns)


def write_timings(finished: Iterable[tuple[str, float]], out_dir: str | Path) -> None:
    """Write when each student's result came in, in seconds from the start of the run.

    `finished` gives (student, seconds) in student order. Kept apart from the grade files, so
    those stay byte-identical from run to run. Written a student at a time, as json.dumps with
    indent=2 would lay it out, so a large class is never held as one text.
    """
    with atomic_writer(Path(out_dir) / TIMINGS_FILE) as stream:
        written = 0
        for student, seconds in finished:
            stream.write(",\n  " if written else "{\n  ")
            stream.write(f"{json.dumps(student)}: {json.dumps(round(seconds, 3))}")
            written += 1
        stream.write("\n}\n" if written else "{}\n")
