"""Per-student extensions: a due time of their own for some students, in place of --due.

    given = read_extensions("extensions.csv")             # {"grace": Extension(...), ...}
    given = combine(roster_extensions("students.csv"), given)
    given["grace"].due_after(policy.due)                  # the time grace's lateness counts from

`--extensions FILE` is a CSV with a header row: `student_id`, then `due` (a time written as --due
is; without a zone, this machine's local time) or `extra_hours` (a number of hours, 0 or more,
added to --due). Each row gives one of the two; a file may hold both columns. The roster
(grader.gradebook.roster) may carry the same `due` or `extra_hours` column beside its `id`; a
roster row with neither cell filled gives that student no extension. A student with an
extension in both files is an error, never a silent choice of one.

Every problem is one line naming the file and the line to fix, raised as UsageError before
anything is graded: a blank or repeated id, a time that is not one, hours that are not a
number, an extension that would move the due time earlier, a student id the class does not
know. The late policy (grader.gradebook.late) then counts that student's lateness from their own
due time; the course's nbgrader plugin (grader.integrations.nbgrader_plugins.PerHourPenalty)
reads the same file, so both give the same final scores.
"""

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from grader.gradebook.late import parse_time
from grader.gradebook.table import read_table
from grader.model import UsageError

OPTION = "--extensions"
ID_COLUMN = "student_id"  # the id column of an --extensions file
ROSTER_ID_COLUMN = "id"  # the roster's, as nbgrader's student import names it
DUE_COLUMN = "due"
HOURS_COLUMN = "extra_hours"


@dataclass(frozen=True)
class Extension:
    """A student's own due time: a time of its own, or hours added to the class's due time."""

    where: str  # "--extensions FILE, line N": what any message about it names
    due: datetime | None = None  # aware; when given, the student's due time
    extra_hours: float = 0.0  # else, hours added to the class's due time

    def due_after(self, due: datetime) -> datetime:
        """Return the student's due time, given the class's `due`."""
        return self.due if self.due is not None else due + timedelta(hours=self.extra_hours)


def read_extensions(path: Path | str) -> dict[str, Extension]:
    """Return the extensions of the --extensions CSV at `path`, by student id.

    Raise UsageError, one line naming the file and line, for anything unusable (see above).
    """
    return _read(Path(path), OPTION, ID_COLUMN, required=True)


def roster_extensions(path: Path | str) -> dict[str, Extension]:
    """Return the extensions a roster's `due` or `extra_hours` column gives (none without one)."""
    return _read(Path(path), "--roster", ROSTER_ID_COLUMN, required=False)


def combine(*sources: Mapping[str, Extension]) -> dict[str, Extension]:
    """Return the extensions of every source; raise UsageError if two give one to a student."""
    combined: dict[str, Extension] = {}
    for source in sources:
        for student, extension in source.items():
            if student in combined:
                raise UsageError(
                    f"{extension.where}: {student!r} already has an extension in "
                    f"{combined[student].where}; give it in one file only"
                )
            combined[student] = extension
    return combined


def check_extensions(extensions: Mapping[str, Extension], due: datetime | None) -> None:
    """Raise UsageError if there are extensions without a due time, or one would move it earlier."""
    if not extensions:
        return
    if due is None:
        first = next(iter(extensions.values()))
        raise UsageError(f"{first.where}: an extension needs --due, the due time it moves")
    for student, extension in extensions.items():
        if extension.due_after(due) < due:
            raise UsageError(
                f"{extension.where}: {student!r} would be due "
                f"{extension.due_after(due).isoformat(sep=' ', timespec='minutes')}, before "
                "--due: an extension cannot be negative"
            )


def check_known(extensions: Mapping[str, Extension], known: Collection[str]) -> None:
    """Raise UsageError for the first extended student not in `known` (the roster, submissions)."""
    for student, extension in extensions.items():
        if student not in known:
            raise UsageError(
                f"{extension.where}: {student!r} is neither on the roster nor among the "
                "submissions (check the id)"
            )


def _read(path: Path, option: str, id_column: str, required: bool) -> dict[str, Extension]:
    """Return the extensions in `path`, whose ids are in `id_column`, by student id."""
    table = read_table(path, option)
    has_extension_column = table.has(DUE_COLUMN) or table.has(HOURS_COLUMN)
    if not required and not has_extension_column:
        return {}
    if not table.has(id_column) or not has_extension_column:
        raise UsageError(
            f"{option} {path} needs the column {id_column!r} and the column {DUE_COLUMN!r} or "
            f"{HOURS_COLUMN!r} in its first row"
        )
    extensions: dict[str, Extension] = {}
    for line, cells in table.rows:
        where = table.where(line)
        student = cells.get(id_column, "")
        if not student:
            raise UsageError(f"{where}: the {id_column} is empty")
        if student in extensions:
            raise UsageError(f"{where}: {student!r} already has an extension on an earlier line")
        due, hours = cells.get(DUE_COLUMN, ""), cells.get(HOURS_COLUMN, "")
        if due and hours:
            raise UsageError(f"{where}: give {DUE_COLUMN} or {HOURS_COLUMN}, not both")
        if due or hours:
            extensions[student] = _extension(where, due, hours)
        elif required:
            raise UsageError(f"{where}: {student!r} has neither {DUE_COLUMN} nor {HOURS_COLUMN}")
    return extensions


def _extension(where: str, due: str, hours: str) -> Extension:
    """Return the extension one row's `due` or `hours` cell gives; raise UsageError if none."""
    if due:
        try:
            return Extension(where, due=parse_time(due, local=True))
        except ValueError:
            raise UsageError(
                f"{where}: {due!r} is not a date and time such as 2026-03-01T23:59+01:00"
            ) from None
    try:
        number = float(hours)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise UsageError(f"{where}: {HOURS_COLUMN} {hours!r} is not a number of hours")
    if number < 0:
        raise UsageError(f"{where}: {HOURS_COLUMN} {hours} is negative: an extension adds time")
    return Extension(where, extra_hours=number)
