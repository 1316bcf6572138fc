"""The class roster: the same CSV file nbgrader's `db student import` reads.

    read_roster("students.csv")    # ("ada", "alan", "grace")

The file has a header row with a column `id` (nbgrader's other columns, first_name, last_name,
email and lms_user_id, may be there too and are ignored). Each id is a student's login, the
name of their folder under nbgrader's `submitted/`. With a roster, every rostered student gets
a row in the grade files, status `missing` and 0 points when they sent nothing.
"""

from pathlib import Path

from grader.gradebook.table import read_table
from grader.intake import ids
from grader.model import UsageError

ID_COLUMN = "id"
OPTION = "--roster"


def read_roster(path: Path | str) -> tuple[str, ...]:
    """Return the student ids of the roster at `path`, in file order.

    Raise UsageError, with one line saying what to fix, for a file that cannot be read, has no
    `id` column, or holds a blank, repeated or unusable id.
    """
    table = read_table(Path(path), OPTION)
    if not table.has(ID_COLUMN):
        raise UsageError(
            f"{OPTION} {path} has no column named {ID_COLUMN!r} in its first row "
            "(nbgrader's student list: a header row `id`, then one login per row)"
        )
    students: dict[str, int] = {}  # id -> the line it is on
    for line, cells in table.rows:
        student = cells.get(ID_COLUMN, "")
        _check(table.where(line), student, students)
        students[student] = line
    return tuple(students)


def _check(where: str, student: str, seen: dict[str, int]) -> None:
    """Raise UsageError if `student`, on the roster's row at `where`, cannot be an entry."""
    if not student:
        raise UsageError(f"{where}: the {ID_COLUMN} is empty")
    if student in seen:
        raise UsageError(f"{where}: {student!r} is already on line {seen[student]}")
    problem = ids.name_problem(student)
    if problem:
        raise UsageError(f"{where}: {problem}")
