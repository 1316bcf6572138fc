"""Grades in a form a learning management system can import: Canvas or Moodle.

    write_lms_grades(book.summaries(), out_dir, "canvas")    # writes out_dir/grades-canvas.csv

The grader knows a student only by the id it found (the nbgrader student folder, or the folder
or file name), so that id goes in the column each system matches students by: Canvas's
"SIS Login ID" and Moodle's username. The score column, named after the assignment, holds the
score that counts: after any late penalty, two decimals, 0 for a rostered student who sent
nothing. An optional comment column holds a one-line summary for Moodle's feedback; Canvas's
gradebook import makes a new assignment of any column it does not know, so its file never has
one. docs/grading.md ("Exports") documents the mapping. nbgrader's own gradebook can be exported the
same way (grader.integrations.nbgrader_plugins.CanvasExport and MoodleExport).
"""

import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from course.manifest import load_course
from grader.outputs import lms_file_name, write_atomically
from grader.reports import spreadsheet
from grader.reports.feedback import format_points
from grader.reports.store import in_student_order
from grader.reports.summary import StudentSummary, one_line_comment

# Canvas's gradebook import: the five student columns it exports, then one per assignment.
# "Points Possible" is the row Canvas itself writes under the header, with the points per item.
CANVAS_STUDENT_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
CANVAS_POINTS_ROW = "    Points Possible"
# Moodle's CSV grade import: a column to identify the user by, then one column per grade item,
# and feedback columns mapped to "Feedback for <item>" on the import page.
MOODLE_IDENTIFIER = "Username"
MOODLE_FEEDBACK = "Feedback"


@dataclass(frozen=True)
class LmsRow:
    """One student's line in an LMS file: who, the score that counts, and a comment."""

    student: str
    score: float
    comment: str = ""


def rows_from_summaries(summaries: Iterable[StudentSummary]) -> Iterator[LmsRow]:
    """Yield one LmsRow per summary: the score after any late penalty, and a comment."""
    return (LmsRow(s.student, s.final_score, one_line_comment(s)) for s in summaries)


def canvas_csv(rows: Iterable[LmsRow], assignment: str, max_score: float) -> str:
    """Return a Canvas gradebook import: the student id as Student and SIS Login ID."""
    buffer = io.StringIO()
    writer = spreadsheet.writer(buffer)
    writer.writerow([*CANVAS_STUDENT_COLUMNS, assignment])
    writer.writerow([CANVAS_POINTS_ROW, "", "", "", "", format_points(max_score)])
    for row in _by_student(rows):
        writer.writerow([row.student, "", "", row.student, "", format_points(row.score)])
    return buffer.getvalue()


def moodle_csv(rows: Iterable[LmsRow], assignment: str, comments: bool = False) -> str:
    """Return a Moodle grade import: the student id as Username, the score, maybe a comment."""
    buffer = io.StringIO()
    writer = spreadsheet.writer(buffer)
    writer.writerow([MOODLE_IDENTIFIER, assignment, *([MOODLE_FEEDBACK] if comments else [])])
    for row in _by_student(rows):
        comment = [row.comment] if comments else []
        writer.writerow([row.student, format_points(row.score), *comment])
    return buffer.getvalue()


def lms_csv(
    rows: Iterable[LmsRow],
    system: str,
    assignment: str,
    *,
    max_score: float,
    comments: bool = False,
) -> str:
    """Return the import file for `system` ("canvas" or "moodle")."""
    if system == "canvas":
        return canvas_csv(rows, assignment, max_score)
    return moodle_csv(rows, assignment, comments)


def write_lms_grades(
    summaries: Iterable[StudentSummary],
    out_dir: str | Path,
    system: str,
    assignment: str | None = None,
    comments: bool = False,
) -> Path:
    """Write the grades for `system` ("canvas" or "moodle") in out_dir; return the file's path.

    The score column is named after `assignment`, by default the course's assignment name.
    """
    summaries = in_student_order(summaries)  # a store is read twice rather than held
    assignment = assignment or load_course().assignment
    top = max((s.max_score for s in summaries), default=0.0)
    text = lms_csv(
        rows_from_summaries(summaries), system, assignment, max_score=top, comments=comments
    )
    path = Path(out_dir) / lms_file_name(system)
    write_atomically(path, text)
    return path


def _by_student(rows: Iterable[LmsRow]) -> list[LmsRow]:
    return sorted(rows, key=lambda row: row.student)
