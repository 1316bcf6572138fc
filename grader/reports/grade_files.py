"""Report step: write grades.csv, and each student's results.json and feedback pages.

Every file is written atomically, and the grade files hold nothing that changes between runs
(no timings, no timestamps, fixed key order and number format), so grading the same
submissions twice gives byte-identical grades.csv and results.json.
"""

import io
import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TextIO

from course.manifest import Course
from grader.model import CATEGORIES, Grade
from grader.outputs import GRADES_FILE, TIMINGS_FILE, atomic_writer, readable_json, write_atomically
from grader.reports import feedback, hidden_entries, spreadsheet
from grader.reports.store import in_student_order
from grader.reports.summary import StudentSummary

# More columns for grades.csv: their names, and what gives a student's cells for them.
Columns = tuple[Sequence[str], Callable[[str], Sequence[str]]]


def grades_csv(summaries: Iterable[StudentSummary], columns: Columns | None = None) -> str:
    """Return the text of grades.csv: one row per student (a StudentSummary), by student id.

    `columns`, if given, is (names, cells_for): more columns after status, and a function
    giving a student's cells for them (the gradebook's late penalty and comment).
    """
    buffer = io.StringIO()
    _write_grades_rows(buffer, summaries, columns)
    return buffer.getvalue()


def _write_grades_rows(
    stream: TextIO, summaries: Iterable[StudentSummary], columns: Columns | None
) -> None:
    names, cells_for = columns or ((), lambda _student: ())
    writer = spreadsheet.writer(stream)
    writer.writerow(["student", "score", "max_score", *CATEGORIES, "status", *names])
    for summary in in_student_order(summaries):
        writer.writerow(
            [
                summary.student,
                feedback.format_points(summary.score),
                feedback.format_points(summary.max_score),
                *map(feedback.format_points, summary.points),
                summary.status,
                *(cells_for(summary.student) if names else ()),
            ]
        )


def results_json(grade: Grade, course: Course | None = None) -> str:
    """Return the text of one student's results.json, in Gradescope's autograder format.

    Its tests are the hidden tests, one entry each with its cases' points (hidden_entries).
    """
    document = {
        "score": grade.score,
        "output": summary(grade),
        "visibility": "visible",
        "tests": hidden_entries.entries(grade, course),
    }
    return readable_json(document)


def summary(grade: Grade) -> str:
    """Return a few sentences summing up one student's result."""
    run = grade.run
    score = feedback.format_points(grade.score)
    top = feedback.format_points(grade.max_score)
    lines = [f"You scored {score} out of {top}."]
    lines += [text for text in (run.reason, run.submission.error) if text]
    lines += list(run.submission.problems)
    if run.status != "completed":
        lines.append("Grading stopped early for that reason: fix it first, then submit again.")
    elif grade.score < grade.max_score:
        lines.append("See the tests below for what to revisit in the lesson.")
    else:
        lines.append("Every hidden test passed. Well done.")
    return "\n".join(dict.fromkeys(lines))


def write_student(
    grade: Grade, out_dir: str | Path, course: Course | None = None, notes: Sequence[str] = ()
) -> None:
    """Write one student's results.json, feedback.md and feedback.html under `out_dir`.

    `notes`, sentences from the gradebook (an extension, say), go under the feedback's score.
    """
    student = grade.run.submission.student
    folder = Path(out_dir) / student
    write_atomically(folder / "results.json", results_json(grade, course))
    blocks = feedback.feedback_blocks(grade, course, notes)
    write_atomically(folder / "feedback.md", feedback.render_markdown(blocks))
    title = f"Feedback for {student}"
    write_atomically(folder / "feedback.html", feedback.render_html(blocks, title))


def write_grades(
    summaries: Iterable[StudentSummary], out_dir: str | Path, columns: Columns | None = None
) -> None:
    """Write grades.csv for every graded student (with more `columns`, as grades_csv says).

    Written a row at a time, so a class read from disk (grader.reports.store) is never held.
    """
    with atomic_writer(Path(out_dir) / GRADES_FILE) as stream:
        _write_grades_rows(stream, summaries, columns)


def write_timings(finished: Iterable[tuple[str, float]], out_dir: str | Path) -> None:
    """Write when each student's result came in, in seconds from the start of the run.

    `finished` gives (student, seconds) in student order. Kept apart from the grade files, so
    those stay byte-identical from run to run. Written a student at a time, as json.dumps with
    indent=2 would lay it out, so a large class is never held as one text.
    """
    with atomic_writer(Path(out_dir) / TIMINGS_FILE) as stream:
        written = 0
        for student, seconds in finished:
            stream.write(",\n  " if written else "{\n  ")
            stream.write(f"{json.dumps(student)}: {json.dumps(round(seconds, 3))}")
            written += 1
        stream.write("\n}\n" if written else "{}\n")
