"""A class of four who hand in the same work at four times, two of them with an extension.

Shared by the tests of extensions on every path (the gradebook itself, `grade`, the LMS files,
nbgrader's autograde): the class is due DUE, under a penalty of PENALTY_PER_HOUR points for
every started hour late.

- on-time hands in before DUE;
- late hands in 2.5 hours after DUE: 3 started hours;
- extended hands in 10 hours after DUE, within their own due time (`due`, 12 hours after);
- extended-late has 24 more hours (`extra_hours`) and still hands in 1.52 hours after them: 2
  started hours.
"""

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

from grader.gradebook.times import TIMESTAMP_FILE, receipt_text

ASSIGNMENT = "bounded_results"
DUE = "2026-03-01 23:59 UTC"
DUE_TIME = datetime(2026, 3, 1, 23, 59, tzinfo=UTC)
PENALTY_PER_HOUR = 2.0
HANDED_IN = {
    "on-time": DUE_TIME - timedelta(minutes=59),
    "late": DUE_TIME + timedelta(hours=2.5),
    "extended": DUE_TIME + timedelta(hours=10),
    "extended-late": DUE_TIME + timedelta(hours=25, minutes=31),
}
# Both kinds of extension in one file, as `grade --extensions` and nbgrader's plugin read it.
EXTENSIONS_CSV = "student_id,due,extra_hours\nextended,2026-03-02T11:59+00:00,\nextended-late,,24\n"
# Each student's own due time, as grades.csv's extended_due writes it ("" for none).
EXTENDED_DUE = {
    "on-time": "",
    "late": "",
    "extended": "2026-03-02T11:59:00+00:00",
    "extended-late": "2026-03-02T23:59:00+00:00",
}
# Started hours late, counted from each student's own due time.
HOURS_CHARGED = {"on-time": 0, "late": 3, "extended": 0, "extended-late": 2}
PENALTY = {student: hours * PENALTY_PER_HOUR for student, hours in HOURS_CHARGED.items()}


def write_extensions(path: Path) -> Path:
    """Write the class's extensions file at `path`; return it."""
    path.write_text(EXTENSIONS_CSV, encoding="utf-8")
    return path


def hand_in(submitted: Path, work: Path) -> list[str]:
    """Copy the lessons folder `work` as each student's, with collect's receipt of their time.

    Returns the students, each in submitted/<student>/<assignment>/ as nbgrader's collect
    leaves them: the receipt is what both the grader and nbgrader count lateness from.
    """
    for student, moment in HANDED_IN.items():
        folder = submitted / student / ASSIGNMENT
        shutil.copytree(work, folder)
        (folder / TIMESTAMP_FILE).write_text(receipt_text(moment), encoding="utf-8")
    return list(HANDED_IN)
