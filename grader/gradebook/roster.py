"""The class roster: the same CSV file nbgrader's `db student import` reads.

    read_roster("students.csv")    # ("ada", "alan", "grace")

The file has a header row with a column `id` (nbgrader's other columns, first_name, last_name,
email and lms_user_id, may be there too and are ignored). Each id is a student's login, the
name of their folder under nbgrader's `submitted/`. With a roster, every rostered student gets
a row in the grade files, status `missing` and 0 points when they sent nothing.
"""

import csv
from pathlib import Path

from grader.intake import ids
from grader.model import UsageError

ID_COLUMN = "id"


def read_roster(path: Path | str) -> tuple[str, ...]:
    """Return the student ids of the roster at `path`, in file order.

    Raise UsageError, with one line saying what to fix, for a file that cannot be read, has no
    `id` column, or holds a blank, repeated or unusable id.
    """
    path = Path(path)
    try:
        # utf-8-sig: a roster saved by a spreadsheet often starts with a byte order mark.
        with path.open(encoding="utf-8-sig", newline="") as stream:
            rows = list(csv.reader(stream))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise UsageError(f"--roster {path} cannot be read ({type(error).__name__})") from None
    if not rows or ID_COLUMN not in [name.strip() for name in rows[0]]:
        raise UsageError(
            f"--roster {path} has no column named {ID_COLUMN!r} in its first row "
            "(nbgrader's student list: a header row `id`, then one login per row)"
        )
    column = [name.strip() for name in rows[0]].index(ID_COLUMN)
    students: dict[str, int] = {}  # id -> the line it is on
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue  # a blank line, as spreadsheets leave at the end
        student = row[column].strip() if column < len(row) else ""
        _check(path, line, student, students)
        students[student] = line
    return tuple(students)


def _check(path: Path, line: int, student: str, seen: dict[str, int]) -> None:
    """Raise UsageError if `student`, on `line` of the roster, cannot be a roster entry."""
    where = f"--roster {path}, line {line}"
    if not student:
        raise UsageError(f"{where}: the {ID_COLUMN} is empty")
    if student in seen:
        raise UsageError(f"{where}: {student!r} is already on line {seen[student]}")
    problem = ids.name_problem(student)
    if problem:
        raise UsageError(f"{where}: {problem}")
