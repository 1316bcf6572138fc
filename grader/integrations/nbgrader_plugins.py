"""nbgrader plugins and preprocessors the course's nbgrader_config.py names.

Each one fixes one thing at its cause, so nbgrader's commands say nothing that looks like trouble
and its exports are ready for a gradebook:

- RoundedCsvExport (`nbgrader export`): nbgrader's CSV columns, with every number in two
  decimals (nbgrader sums float cell scores and writes 56.830000000000005) and real CSV quoting.
- CanvasExport, MoodleExport (`nbgrader export --exporter=…`): the LMS files `grade --lms`
  writes, from nbgrader's gradebook, so its late penalties and its roster shape them.
- PerHourPenalty (`AssignLatePenalties.plugin_class`): points off per started hour, the rule
  `grade --late-policy per-hour:P` applies (grader.gradebook.late), counted from each student's
  own due time where the file `grade --extensions` reads gives one (grader.gradebook.extensions),
  so both give the same grades.
- OverwriteReleasedCells (autograde): nbgrader checks a locked cell against the instructor's
  version, hidden tests included, so every grade cell with hidden tests warned "Attribute
  'checksum' … has changed!" for every student; this compares it with the released version.
- ClearHiddenTestsForFeedback (generate_feedback): nbgrader's ClearHiddenTests, whose
  display_data_priority setting is declared, so feedback no longer warns it is not recognized.

This module imports nbgrader; the grader itself never imports it.
"""

import io
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from nbformat import NotebookNode
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import CsvExportPlugin, ExportPlugin, LateSubmissionPlugin
from nbgrader.preprocessors import ClearHiddenTests, OverwriteCells
from traitlets import Bool, Float, List, Unicode

from grader.gradebook.extensions import Extension, check_extensions, check_known, read_extensions
from grader.gradebook.late import late_penalty
from grader.gradebook.lms import LmsRow, lms_csv
from grader.model import UsageError
from grader.outputs import lms_file_name, write_atomically
from grader.reports import spreadsheet
from grader.reports.feedback import format_points
from grader.reports.summary import extension_words

EXTENSIONS_HELP = (
    "the CSV of students' own due times `grade --extensions` reads (student_id, then due or "
    "extra_hours); empty for none"
)

CSV_COLUMNS = (
    "assignment",
    "duedate",
    "timestamp",
    "student_id",
    "last_name",
    "first_name",
    "email",
    "raw_score",
    "late_submission_penalty",
    "score",
    "max_score",
)
# nbconvert's and nbgrader's order of preference for a cell's outputs.
OUTPUT_FORMATS = (
    "text/html",
    "application/pdf",
    "text/latex",
    "image/svg+xml",
    "image/png",
    "image/jpeg",
    "text/plain",
)
NUMBER_COLUMNS = ("raw_score", "late_submission_penalty", "score", "max_score")


def gradebook_rows(
    gradebook: Gradebook, assignments: Iterable[str] = (), students: Iterable[str] = ()
) -> Iterator[dict[str, Any]]:
    """Yield one dict per (assignment, student) of the gradebook, as nbgrader's export has them.

    A student with no submission scores 0; the score is the raw score less the late penalty,
    never below 0; every number is rounded to two decimals.
    """
    for assignment in gradebook.assignments:
        if assignments and assignment.name not in assignments:
            continue
        for student in gradebook.students:
            if students and student.id not in students:
                continue
            row: dict[str, Any] = {
                "assignment": assignment.name,
                "duedate": assignment.duedate or "",
                "student_id": student.id,
                "last_name": student.last_name or "",
                "first_name": student.first_name or "",
                "email": student.email or "",
                "max_score": assignment.max_score,
            }
            try:
                submission = gradebook.find_submission(assignment.name, student.id)
            except MissingEntry:
                row.update(timestamp="", raw_score=0.0, late_submission_penalty=0.0)
                row.update(seconds_late=0.0, submitted=False)
            else:
                penalty = submission.late_submission_penalty or 0.0
                row.update(timestamp=submission.timestamp or "", raw_score=submission.score)
                row.update(late_submission_penalty=penalty, submitted=True)
                row.update(seconds_late=submission.total_seconds_late or 0.0)
            row["score"] = max(0.0, row["raw_score"] - row["late_submission_penalty"])
            for column in NUMBER_COLUMNS:
                row[column] = round(float(row[column]), 2)
            yield row


class RoundedCsvExport(CsvExportPlugin):
    """nbgrader's CSV export, with two decimals and proper quoting."""

    def export(self, gradebook: Gradebook) -> None:
        """Write the grades to `--to` (grades.csv by default)."""
        buffer = io.StringIO()
        writer = spreadsheet.writer(buffer)
        writer.writerow(CSV_COLUMNS)
        for row in gradebook_rows(gradebook, self.assignment, self.student):
            cells = {c: format_points(row[c]) for c in NUMBER_COLUMNS}
            writer.writerow([cells.get(c, row[c]) for c in CSV_COLUMNS])
        destination = self.to or "grades.csv"
        self.log.info("Exporting grades to %s", destination)
        write_atomically(destination, buffer.getvalue())


class _LmsExport(ExportPlugin):
    """An LMS import file from nbgrader's gradebook, one assignment at a time."""

    system = ""
    comments = Bool(False, help="add a one-line comment column (Moodle feedback)").tag(config=True)
    extensions = Unicode("", help=EXTENSIONS_HELP).tag(config=True)

    def export(self, gradebook: Gradebook) -> None:
        """Write the LMS file to `--to` (grades-<system>.csv by default)."""
        rows = list(gradebook_rows(gradebook, self.assignment, self.student))
        names = sorted({row["assignment"] for row in rows})
        if len(names) != 1:
            self.fail(f"export one assignment at a time, with --assignment=[name] (found {names})")
        try:
            extended = read_extensions(self.extensions) if self.extensions else {}
        except UsageError as error:
            self.fail(str(error))
        top = max(row["max_score"] for row in rows)
        lms_rows = [
            LmsRow(row["student_id"], row["score"], _comment(row, extended.get(row["student_id"])))
            for row in rows
        ]
        text = lms_csv(lms_rows, self.system, names[0], max_score=top, comments=self.comments)
        destination = self.to or lms_file_name(self.system)
        self.log.info("Exporting %s grades to %s", self.system, destination)
        write_atomically(destination, text)

    def fail(self, message: str) -> None:
        """Stop the export with one line for the instructor."""
        self.log.error(message)
        raise SystemExit(1)


class CanvasExport(_LmsExport):
    """The Canvas gradebook import `grade --lms canvas` writes, from nbgrader's gradebook."""

    system = "canvas"


class MoodleExport(_LmsExport):
    """The Moodle grade import `grade --lms moodle` writes, from nbgrader's gradebook."""

    system = "moodle"


def _comment(row: dict[str, Any], extension: Extension | None) -> str:
    if not row["submitted"]:
        return "No submission was received."
    text = f"{format_points(row['raw_score'])}/{format_points(row['max_score'])}."
    if extension is not None and row["duedate"]:
        extended_due = extension.due_after(_aware(row["duedate"]))
        text += " " + extension_words(extended_due.isoformat(timespec="seconds"))
    if row["late_submission_penalty"]:
        hours = row["seconds_late"] / 3600
        text += (
            f" Late by {hours:.1f} h: {format_points(row['late_submission_penalty'])} off, "
            f"{format_points(row['score'])} counted."
        )
    return text


class PerHourPenalty(LateSubmissionPlugin):
    """Take `points_per_hour` off for every hour, or part of one, after the student's due time.

    A student's due time is the assignment's, or their own from the `extensions` file: read
    whole, and checked against the gradebook (every id a student of it, no extension moving the
    due time earlier), when autograde first asks for a penalty. A file that fails is one line in
    nbgrader's log and stops autograde there, so no penalty comes from a half-read file.
    """

    points_per_hour = Float(1.0, help="points off for every started hour of lateness").tag(
        config=True
    )
    extensions = Unicode("", help=EXTENSIONS_HELP).tag(config=True)

    def late_submission_penalty(
        self, student_id: str, score: float, total_seconds_late: float
    ) -> float:
        """Return the penalty for one notebook: never more than its score."""
        seconds_late = total_seconds_late
        extension = self._extensions().get(student_id)
        if extension is not None:
            due = self._assignment_due()
            moved = (extension.due_after(due) - due).total_seconds()
            seconds_late = max(0.0, total_seconds_late - moved)
        return late_penalty("per-hour", self.points_per_hour, score, seconds_late)

    def _extensions(self) -> dict[str, Extension]:
        """Return the extensions file's extensions, checked against the gradebook, once read."""
        if not self.extensions:
            return {}
        if not hasattr(self, "_read"):
            try:
                extended = read_extensions(self.extensions)
                check_extensions(extended, self._assignment_due())
                check_known(extended, {student.id for student in self.parent.gradebook.students})
            except UsageError as error:
                self.log.error("PerHourPenalty.extensions: %s", error)
                raise SystemExit(1) from None
            self._read = extended
        return self._read

    def _assignment_due(self) -> datetime:
        """Return the assignment's due time, from the gradebook autograde has open."""
        assignment = self.parent.gradebook.find_assignment(self.parent.assignment_id)
        return _aware(assignment.duedate)


def _aware(moment: datetime) -> datetime:
    """Return nbgrader's `moment` (naive, in UTC, as its gradebook keeps times) as aware."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


class OverwriteReleasedCells(OverwriteCells):
    """OverwriteCells that checks a locked cell against what students received.

    nbgrader stores each locked cell as the instructor wrote it, hidden tests included, and
    releases it with the hidden region removed; its check then finds every grade cell with
    hidden tests changed, in every submission. A cell that is exactly what was released gets
    the instructor's version back before nbgrader's check, so only a real change warns.
    """

    def preprocess_cell(
        self, cell: NotebookNode, resources: dict[str, Any], cell_index: int
    ) -> tuple[NotebookNode, dict[str, Any]]:
        """Put back the instructor's source of an untouched released cell, then check as usual."""
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id is not None:
            try:
                source = self.gradebook.find_source_cell(
                    grade_id, self.notebook_id, self.assignment_id
                ).source
            except MissingEntry:
                source = None
            if source is not None and cell.source == self._released(source):
                cell.source = source
        return super().preprocess_cell(cell, resources, cell_index)

    def _released(self, source: str) -> str:
        """Return `source` as generate_assignment releases it: its hidden tests removed."""
        released = NotebookNode(cell_type="code", source=source, metadata={})
        ClearHiddenTests(parent=self)._remove_hidden_test_region(released)
        return released.source


class ClearHiddenTestsForFeedback(ClearHiddenTests):
    """ClearHiddenTests for feedback pages, with nbconvert's display_data_priority declared.

    nbgrader's preprocessors redefine display_data_priority without making it configurable,
    while the feedback exporter configures it for every preprocessor, so nbgrader warned
    "Config option `display_data_priority` not recognized by `ClearHiddenTests`".
    """

    display_data_priority = List(
        list(OUTPUT_FORMATS),
        help="output formats, best first, as nbconvert's exporters configure them",
    ).tag(config=True)
