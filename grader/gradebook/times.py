"""When each submission was handed in, taken only from sources the student cannot set.

    given = read_submitted_at("times.csv")          # {"ada": datetime(...), ...}
    when = hand_in_time(found.student, found.path, found.start, given)
    when.time, when.source                            # None and "" when nothing trusted says

A student sets their files' modification times (`touch -d`, an archive that keeps times) and
writes whatever `timestamp.txt` they like into their own folder or zip, so neither ever decides
lateness. Two sources are trusted, in this order:

1. `--submitted-at FILE`, the instructor's: a CSV with an `id` column and a `submitted_at`
   column (a roster with that column will do), such as the submission times an LMS exports.
2. nbgrader's collect receipt: the `timestamp.txt` in `submitted/<student>/<assignment>/`, where
   `submitted/` is the folder named on the command line, lies above it or directly in it, so no
   student made that folder. The course's collect
   (grader.integrations.nbgrader_exchange.CollectWithoutLinks) writes that file itself from
   times only the file system sets; nbgrader's own collect copies the student's file there.

Without either, a student has no trusted time: lateness is not applied and the summary says so.
"""

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from grader.gradebook.late import parse_time
from grader.gradebook.table import read_table
from grader.intake.untrusted import Folder, Refused, relative
from grader.model import UsageError

TIMESTAMP_FILE = "timestamp.txt"
TIMESTAMP_BYTES = 1000  # nbgrader's receipt is one line
RECEIPT_FOLDER = "submitted"  # nbgrader's CourseDirectory.submitted_directory
ID_COLUMN = "id"
TIME_COLUMN = "submitted_at"
GIVEN = "--submitted-at"
RECEIPT = "collect receipt"


@dataclass(frozen=True)
class Submitted:
    """When a submission was handed in, and which trusted source said so."""

    time: datetime | None  # aware; None when no trusted source says
    source: str  # GIVEN, RECEIPT, or "" when there is no trusted time
    problem: str = ""  # why a receipt that was there was not used


def hand_in_time(student: str, path: str, within: str, given: Mapping[str, datetime]) -> Submitted:
    """Return when `student`'s submission at `path` (read from `within`) was handed in.

    `given` holds the instructor's times (--submitted-at); a receipt counts only in nbgrader's
    collected tree, never in a folder the student made (see is_receipt_place).
    """
    if student in given:
        return Submitted(given[student], GIVEN)
    if not is_receipt_place(path, within):
        return Submitted(None, "")
    try:
        with Folder.open(within, relative(path, within)) as folder:
            return _receipt(folder)
    except (OSError, Refused):
        return Submitted(None, "", "its folder in submitted/ could not be opened")


def is_receipt_place(path: str, within: str) -> bool:
    """Say whether `path` is submitted/<student>/<assignment> with submitted/ not the student's.

    `within` is the folder the instructor named: `submitted/` must be that folder, lie above
    it, or lie directly in it. Deeper, it is a folder some student handed in.
    """
    full = Path(os.path.abspath(path)).parts
    named = len(Path(os.path.abspath(within or path)).parts)
    place = len(full) - 3  # the index `submitted` must have
    return place >= 0 and full[place] == RECEIPT_FOLDER and place <= named


def _receipt(folder: Folder) -> Submitted:
    """Return the time in `folder`'s collect receipt, or no time and why it was not used."""
    kind = folder.kind(TIMESTAMP_FILE)
    if kind is None:
        return Submitted(None, "")
    try:
        text = folder.read(TIMESTAMP_FILE, TIMESTAMP_BYTES).decode("utf-8")
        return Submitted(parse_time(text.strip()), RECEIPT)
    except Refused:
        return Submitted(
            None, "", f"its {TIMESTAMP_FILE} is a {kind}, not a file, so it was not read"
        )
    except (OSError, UnicodeDecodeError, ValueError) as error:
        return Submitted(
            None, "", f"its {TIMESTAMP_FILE} could not be read ({type(error).__name__})"
        )


def read_submitted_at(path: Path | str) -> dict[str, datetime]:
    """Return the hand-in time of each student in the CSV at `path`, by id.

    A row whose time is empty gives that student no time. Raise UsageError, with one line
    naming what to fix, for a file that cannot be read, lacks a column, or holds a time that
    is not one (written as --due is; without a zone, this machine's local time).
    """
    table = read_table(Path(path), GIVEN)
    if not table.has(ID_COLUMN, TIME_COLUMN):
        raise UsageError(
            f"{GIVEN} {path} needs the columns {ID_COLUMN!r} and {TIME_COLUMN!r} in its first row"
        )
    times: dict[str, datetime] = {}
    for line, cells in table.rows:
        student, time = cells.get(ID_COLUMN, ""), cells.get(TIME_COLUMN, "")
        if not student or not time:
            continue
        try:
            times[student] = parse_time(time, local=True)
        except ValueError:
            raise UsageError(
                f"{table.where(line)}: {time!r} is not a date and time such as "
                "2026-03-01T23:59+01:00"
            ) from None
    return times


def receipt_text(moment: datetime) -> str:
    """Return a receipt's line for `moment`, as nbgrader writes timestamp.txt (in UTC)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
