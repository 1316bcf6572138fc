"""Grades in a form a learning management system can import: Canvas or Moodle.

    write_lms_grades(grades, out_dir, "canvas")    # writes out_dir/grades-canvas.csv

The grader knows a student only by the id it found (the nbgrader student folder, or the folder
or file name), so that id goes in the column each system matches students by: Canvas's
"SIS Login ID" and Moodle's username. The total score goes in one column named after the
assignment. README.md ("Exports") documents the mapping.
"""

import csv
import io
from pathlib import Path

from course.assemble import load_course
from grader.feedback import format_points
from grader.report import write_atomically

# Canvas's gradebook import: the five student columns it exports, then one per assignment.
# "Points Possible" is the row Canvas itself writes under the header, with the points per item.
CANVAS_STUDENT_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
CANVAS_POINTS_ROW = "    Points Possible"
# Moodle's CSV grade import: a column to identify the user by, then one column per grade item.
MOODLE_IDENTIFIER = "Username"

SYSTEMS = ("canvas", "moodle")


def lms_file_name(system):
    """Return the name of the export file for `system`, such as grades-canvas.csv."""
    return f"grades-{system}.csv"


def canvas_csv(grades, assignment):
    """Return a Canvas gradebook import: the student id as Student and SIS Login ID."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*CANVAS_STUDENT_COLUMNS, assignment])
    top = max((g.max_score for g in grades), default=0.0)
    writer.writerow([CANVAS_POINTS_ROW, "", "", "", "", format_points(top)])
    for grade in _by_student(grades):
        student = grade.run.submission.student
        writer.writerow([student, "", "", student, "", format_points(grade.score)])
    return buffer.getvalue()


def moodle_csv(grades, assignment):
    """Return a Moodle grade import: the student id as Username, then the score."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([MOODLE_IDENTIFIER, assignment])
    for grade in _by_student(grades):
        writer.writerow([grade.run.submission.student, format_points(grade.score)])
    return buffer.getvalue()


def write_lms_grades(grades, out_dir, system, assignment=None):
    """Write the grades for `system` ("canvas" or "moodle") in out_dir; return the file's path.

    The score column is named after `assignment`, by default the course's assignment name.
    """
    assignment = assignment or load_course().assignment
    builders = {"canvas": canvas_csv, "moodle": moodle_csv}
    path = Path(out_dir) / lms_file_name(system)
    write_atomically(path, builders[system](grades, assignment))
    return path


def _by_student(grades):
    return sorted(grades, key=lambda g: g.run.submission.student)
