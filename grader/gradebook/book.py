"""The class's gradebook as results come in: roster rows, late penalties and a summary each.

    book = ClassBook(GradebookSettings(roster=read_roster("students.csv"), policy=policy))
    grade_submissions(submissions, out_dir, settings, progress, book=book)
    book.summaries()    # one StudentSummary per student, rostered or graded, by student id

The grading pipeline hands the book each student's Grade as soon as it is scored; the book keeps
only a StudentSummary (grader.reports.summary), and keeps it on disk (grader.reports.store), so the
class report, the item-analysis export and the LMS files are built from the book without holding
every outcome of every student, nor even every summary, in memory. With a roster
it also gives the pipeline one "missing" result per rostered student who sent nothing, and with a
due date it works out each submission's lateness and penalty (grader.late).
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from grader.gradebook.extensions import Extension, check_known
from grader.gradebook.late import LatePolicy
from grader.gradebook.times import Submitted, hand_in_time
from grader.intake.discover import Found
from grader.model import MISSING, Grade, RunResult, Submission, UsageError
from grader.reports.feedback import format_points
from grader.reports.store import SummaryStore
from grader.reports.summary import (
    CatalogueTest,
    StudentSummary,
    error_summary,
    one_line_comment,
    summarize,
)

MISSING_REASON = "No submission was received from you for this assignment."
NAMES_LISTED = 10  # students named in one summary line before "and N more"


@dataclass(frozen=True)
class GradebookSettings:
    """What shapes the grade files beyond the grader's verdict."""

    roster: tuple[str, ...] | None = None  # every student who must get a row
    policy: LatePolicy | None = None
    comments: bool = False  # add a one-line comment column to the grade files
    # The instructor's hand-in times (--submitted-at), by student id.
    submitted_at: Mapping[str, datetime] = field(default_factory=dict)
    # Students' own due times (--extensions, the roster's column), by student id.
    extensions: Mapping[str, Extension] = field(default_factory=dict)


class ClassBook:
    """Keeps one StudentSummary per student as their result comes in."""

    def __init__(self, settings: GradebookSettings = GradebookSettings()):
        self.settings = settings
        self.catalogue: Sequence[CatalogueTest] = ()
        self._summaries = SummaryStore()
        self._late_problems: list[str] = []
        self._untimed: set[str] = set()  # students no trusted source gives a hand-in time

    def require_trusted_times(self, submissions: Iterable[Found]) -> None:
        """Raise UsageError if a penalty is asked for and no submission has a trusted time.

        Said before anything is graded: a penalty that can apply to no one is a mistake of the
        command line, not something to find out in the summary.
        """
        policy, given = self.settings.policy, self.settings.submitted_at
        if policy is None or policy.method == "none":
            return
        for found in submissions:
            if hand_in_time(found.student, found.path, found.start, given).time is not None:
                return
        raise UsageError(
            "--late-policy: no submission has a trusted hand-in time (file times and students' "
            "own timestamp.txt are never used); give --submitted-at FILE, or grade the "
            "submitted/ tree nbgrader's collect wrote"
        )

    def require_known_extensions(self, submissions: Iterable[Found]) -> None:
        """Raise UsageError if an extension names a student neither rostered nor submitting.

        Said once the submissions are found, before anything is graded.
        """
        known = {found.student for found in submissions} | set(self.settings.roster or ())
        check_known(self.settings.extensions, known)

    def use_catalogue(self, catalogue: Sequence[CatalogueTest]) -> None:
        """Set the hidden tests each summary keeps one verdict byte for, in their order."""
        self.catalogue = tuple(catalogue)

    def missing_results(self, submitted: Iterable[str]) -> list[RunResult]:
        """Return a "missing" result for each rostered student not among `submitted`."""
        found = set(submitted)
        return [
            RunResult(Submission(student, "", "lessons", ()), (), MISSING, MISSING_REASON)
            for student in self.settings.roster or ()
            if student not in found
        ]

    def add(self, grade: Grade, seconds: float | None = None, has_feedback: bool = True) -> None:
        """Keep the summary of one student's grade, with its lateness, replacing any earlier one.

        `seconds` is how long grading this student took, where the run measures it (the class
        report then has a time column); `has_feedback` says whether their feedback page exists.
        """
        student = grade.run.submission.student
        try:
            summary = summarize(grade, self.catalogue, seconds=seconds, has_feedback=has_feedback)
            summary = self._with_lateness(summary, grade.run.submission)
        except Exception:
            # One odd result must never cost the class its reports: it shows as an error.
            summary = error_summary(student, has_feedback)
        self._summaries.put(summary)

    def summary(self, student: str) -> StudentSummary | None:
        """Return the summary of `student`, or None if the book has none."""
        return self._summaries.get(student)

    def has(self, student: str) -> bool:
        """Say whether the book has a summary of `student`."""
        return self._summaries.has(student)

    def summaries(self) -> Sequence[StudentSummary]:
        """Return every summary kept, sorted by student id (each read from disk when used)."""
        return self._summaries

    def grades_columns(self) -> tuple[str, ...]:
        """Return the columns grades.csv gets beyond the grader's own, for the late policy."""
        late = ("submitted", "hours_late", "late_penalty", "final_score")
        extended = ("extended_due",) if self.settings.extensions else ()
        return (late + extended if self.settings.policy else ()) + (
            ("comment",) if self.settings.comments else ()
        )

    def grades_cells(self, student: str) -> list[str]:
        """Return the cells of `student`'s row for the columns of grades_columns()."""
        summary = self._summaries.get(student)
        if summary is None:
            return [""] * len(self.grades_columns())
        cells = []
        if self.settings.policy:
            cells += [
                summary.submitted,
                f"{summary.seconds_late / 3600:.2f}",
                format_points(summary.late_penalty),
                format_points(summary.final_score),
            ]
            if self.settings.extensions:
                cells.append(summary.extended_due)
        if self.settings.comments:
            cells.append(one_line_comment(summary))
        return cells

    def notes(self) -> list[str]:
        """Return lines for the instructor about the roster and lateness, for the summary."""
        lines = []
        roster, policy = self.settings.roster, self.settings.policy
        counted = roster is not None or policy is not None
        missing, strangers, late = self._roster_and_late(roster) if counted else ([], [], 0)
        if roster is not None:
            lines.append(
                f"Roster: {len(roster)} students, {_count(len(missing), 'student')} with no "
                "submission (status missing, 0 points)" + _names(missing) + "."
            )
            if strangers:
                lines.append(
                    f"Not on the roster, graded anyway: {', '.join(strangers[:NAMES_LISTED])}"
                    + _more(strangers)
                    + ". An LMS will not know them: check their folder names or the roster."
                )
        if policy is not None:
            lines.append(
                f"Late policy: {policy.describe()}. {_count(late, 'submission')} late; "
                "grades.csv has each one's lateness and penalty (final_score)."
            )
            if self._untimed:
                students = sorted(self._untimed)
                lines.append(
                    "No trusted time, lateness not applied (give --submitted-at FILE, or grade "
                    "the submitted/ tree the course's collect wrote): "
                    f"{', '.join(students[:NAMES_LISTED])}{_more(students)}."
                )
            lines += self._late_problems
            extended = sorted(self.settings.extensions)
            if extended:
                lines.append(
                    f"Extensions: {_count(len(extended), 'student')}, lateness counted from "
                    f"their own due time (grades.csv, extended_due): "
                    f"{', '.join(extended[:NAMES_LISTED])}{_more(extended)}."
                )
        return lines

    def feedback_notes(self, student: str) -> list[str]:
        """Return the sentences for `student`'s feedback page: their extension, if any."""
        policy, extension = self.settings.policy, self.settings.extensions.get(student)
        if policy is None or extension is None:
            return []
        due = extension.due_after(policy.due).isoformat(sep=" ", timespec="minutes")
        return [f"You had an extension: your work was due {due}; any lateness counts from then."]

    def _roster_and_late(self, roster: Sequence[str] | None) -> tuple[list[str], list[str], int]:
        """Return the students missing, those not on `roster` (if any), and how many were late.

        One pass over the book, which reads each summary from disk.
        """
        rostered = set(roster or ())
        missing: list[str] = []
        strangers: list[str] = []
        late = 0
        for summary in self._summaries:
            if summary.status == MISSING:
                missing.append(summary.student)
            if roster is not None and summary.student not in rostered:
                strangers.append(summary.student)
            late += summary.seconds_late > 0
        return missing, strangers, late

    def _with_lateness(self, summary: StudentSummary, submission: Submission) -> StudentSummary:
        """Return `summary` with when the submission was made and, under a policy, its penalty.

        A student with an extension is late only after their own due time, which the summary
        keeps (extended_due).
        """
        policy = self.settings.policy
        if policy is None:
            return summary
        extension = self.settings.extensions.get(summary.student)
        if extension is not None:
            policy = replace(policy, due=extension.due_after(policy.due))
            extended_due = policy.due.isoformat(timespec="seconds")
            summary = replace(summary, extended_due=extended_due)
        if summary.status == MISSING or not submission.path:
            return summary
        given = self.settings.submitted_at
        when = hand_in_time(summary.student, submission.path, submission.within, given)
        if when.time is None:
            self._untimed.add(summary.student)
        if when.problem:
            self._late_problems.append(f"{summary.student}: {when.problem}.")
        return replace(
            summary,
            submitted=_iso(when),
            seconds_late=policy.seconds_late(when.time),
            late_penalty=policy.penalty(summary.score, when.time),
        )


def _iso(when: Submitted) -> str:
    return when.time.isoformat(timespec="seconds") if when.time else ""


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _names(students: list[str]) -> str:
    return f": {', '.join(students[:NAMES_LISTED])}{_more(students)}" if students else ""


def _more(students: list[str]) -> str:
    extra = len(students) - NAMES_LISTED
    return f" and {extra} more" if extra > 0 else ""
