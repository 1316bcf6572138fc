"""What a grading run shows the instructor: a progress bar, then one table and a few lines."""

from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import TextIO

from grader.model import CATEGORIES, Grade, JobFacts
from grader.reports.feedback import format_points
from grader.reports.summary import StudentSummary


def interrupted_message(progress: "ProgressBar", out_dir: str | Path) -> str:
    """Say in one line what an interrupted run kept and how to finish it."""
    return (
        f"Interrupted: {progress.done} of {progress.total} students graded, their reports "
        f"kept in {out_dir}/. Run the same command again to resume and grade the rest."
    )


def resumed_message(progress: "ProgressBar") -> str:
    """Say in one line how many results an earlier run had already produced."""
    graded = progress.done - progress.resumed
    return (
        f"Resumed: reused {progress.resumed} results from an earlier run into this folder "
        f"and graded {graded}."
    )


class ProgressBar:
    """A one-line progress bar on a terminal, one line per student elsewhere."""

    WIDTH = 30

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.total = 0
        self.done = 0
        self.resumed = 0
        self.notes: list[str] = []  # lines for the instructor, printed under the summary table
        self.isolation = ""  # how the jobs shut student code in, once they say

    def start(self, total: int) -> None:
        """Set how many students are to be graded and draw the empty bar."""
        self.total = total
        self._draw("")

    def advance(self, grade: Grade) -> None:
        """Count one more graded student."""
        self.done += 1
        self._draw(grade.run.submission.student)

    def resume(self, grade: Grade) -> None:
        """Count one more student whose result an earlier run already produced."""
        self.done += 1
        self.resumed += 1
        self._draw(f"{grade.run.submission.student} (resumed)")

    def note(self, line: str) -> None:
        """Keep one line for the instructor, to print with the summary."""
        self.notes.append(line)

    def learn(self, facts: JobFacts) -> None:
        """Keep what the grading jobs said of themselves (grader.model.JobFacts)."""
        self.isolation = facts.isolation

    def finish(self) -> None:
        """End the bar's line."""
        if self.stream.isatty():
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self, student: str) -> None:
        filled = self.WIDTH * self.done // max(self.total, 1)
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        line = f"grading [{bar}] {self.done}/{self.total} {student}"
        if self.stream.isatty():
            self.stream.write("\r" + line.ljust(self.WIDTH + 40))
        elif student:
            self.stream.write(line + "\n")
        self.stream.flush()


def summary_table(summaries: Collection[StudentSummary]) -> Iterator[str]:
    """Yield the end-of-run table's lines: one per student, with score, status and points.

    Two passes over `summaries` (the widths, then the rows), so a class read from disk
    (grader.reports.store) is never held whole, nor is the table.
    """
    header = ["student", "score", "status", *CATEGORIES]
    widths = [len(cell) for cell in header]
    for summary in summaries:
        widths = [max(w, len(cell)) for w, cell in zip(widths, _row(summary), strict=True)]
    yield _line(header, widths)
    yield "  ".join("-" * w for w in widths)
    for summary in summaries:
        yield _line(_row(summary), widths)


def _row(summary: StudentSummary) -> list[str]:
    return [
        _shown(summary.student),
        f"{format_points(summary.score)}/{format_points(summary.max_score)}",
        summary.status,
        *map(format_points, summary.points),
    ]


def _line(cells: Sequence[str], widths: Sequence[int]) -> str:
    return "  ".join(cell.ljust(w) for cell, w in zip(cells, widths, strict=True)).rstrip()


def _shown(student: str) -> str:
    """Return a student id as it can be printed in one cell: as a literal if it holds a tab."""
    return student if student.isprintable() else repr(student)
