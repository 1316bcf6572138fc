"""The class report's HTML: sections, the sortable students' table and the style, all inline.

The students' table sorts without a script: a radio button per column and direction sits before
the table, each row carries its rank for every sort as a CSS custom property, and the checked
button's rule sets every row's flex `order` to that rank. The ▲ ▼ in each heading are labels for
those buttons, so a click, or the keyboard, sorts. grader.reports.class_figures works out the
figures; the page is written as a stream, a student's row at a time, so a class of thousands is
never one string in memory.

Not Jinja2: the cells, links and charts are HTML fragments built here, which a template must
take as Markup, so autoescape would not guard the student ids; every text is escaped where it is
put (tests/grader/reports/test_class_report.py attacks each place), and a template wrote the
students' rows 5.6 times slower (4,000 rows: 0.17 s against 0.03 s) and needs Jinja2 where
grading runs.
"""

import html
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TextIO
from urllib.parse import quote

from grader.model import CATEGORIES, MISSING
from grader.reports import charts
from grader.reports.class_figures import (
    STUDENT_NAMES_SHOWN,
    CategoryFigures,
    ClassFigures,
    TestFailures,
)
from grader.reports.class_ranks import Ranks
from grader.reports.class_runs import RUN_STATUS_WORDS, stopped_run
from grader.reports.class_scores import counted
from grader.reports.class_style import STYLE
from grader.reports.feedback import format_points
from grader.reports.summary import StudentSummary

FEEDBACK_PAGE = "feedback.html"


@dataclass(frozen=True)
class Column:
    """One column of the students' table: its heading, its cells and how it is laid out."""

    key: str  # also the name of its sort in ClassFigures.ranks
    heading: str
    cell: Callable[[StudentSummary], str]  # HTML
    width: str = "minmax(4.8rem, 1fr)"
    numeric: bool = True  # right-aligned


def write_page(
    out: TextIO, figures: ClassFigures, students: Iterable[StudentSummary], similar: str = ""
) -> None:
    """Write the whole page to `out`; `students` by student id, read once or twice.

    Once for the students' table, and once more for the runs that stopped if there are any.
    `similar`, if given, is the section on similar code (grader.reports.similarity), put last.
    """
    columns = _columns(figures.timed, figures.late)
    out.write(
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>Class report</title>\n<style>{STYLE}{_sort_style(columns)}</style>\n"
        "</head>\n<body>\n<main>\n"
    )
    full_marks = _full_marks_bars(figures.categories, figures.graded)
    before_table = [
        "<h1>Class report</h1>",
        f"<p>{html.escape(_opening(figures))} {html.escape(figures.score_sentence)}</p>",
        "<h2>Score distribution</h2>",
        charts.column_chart(figures.bands, "chart-scores", "Students by score band"),
        f"<p class='note'>{html.escape(_bands_note(figures.bands))}</p>",
        "<h2>Categories</h2>",
        "<p>The share of students with all of each category's points:</p>",
        charts.row_chart(full_marks, "chart-categories", "Students at full marks"),
        _category_table(figures.categories),
        "<h2>Students</h2>",
    ]
    out.write("\n".join(before_table) + "\n")
    _write_students_table(out, students, columns, figures.ranks)
    out.write("\n<h2>Hidden tests answered wrongly</h2>\n")
    _write_failures(out, figures.failures, figures.tests)
    out.write("\n<h2>Runs that timed out or crashed</h2>\n")
    _write_stopped_table(out, students if figures.stopped else ())
    if similar:
        out.write("\n" + similar + "\n")
    files = (
        "<h2>Files</h2>",
        "<p><a href='grades.csv'>grades.csv</a> (every student's points) and "
        "<a href='item-analysis.csv'>item-analysis.csv</a> (one row per student, one column per "
        "hidden test case: 1 passed, 0 earned nothing, empty not judged).</p>",
    )
    out.write("\n" + "\n".join(files) + "\n</main>\n</body>\n</html>\n")


def _opening(figures: ClassFigures) -> str:
    """Return the page's first sentences: how many students were graded, their average."""
    graded, missing = figures.graded, figures.students - figures.graded
    average = format_points(figures.score_sum / graded) if graded else "–"
    top = format_points(figures.top) if figures.top is not None else "–"
    opening = f"{graded} students graded. Average score {average} out of {top}."
    if missing:
        opening += (
            f" Left out of the figures: {counted(missing, 'student')} on the roster who sent "
            "nothing (status missing, 0 points)."
        )
    return opening


def _full_marks_bars(figures: Sequence[CategoryFigures], students: int) -> list[charts.Bar]:
    """Return one Bar per category: the percentage of students with all its points."""
    return [
        charts.Bar(
            f.category,
            f.at_full_marks,
            f"{f.category}: {f.at_full_marks:g}% of {counted(students, 'student')} at full marks",
        )
        for f in figures
    ]


def _bands_note(bands: Sequence[charts.Bar]) -> str:
    if len(bands) < 2:
        return ""
    low, high = bands[0].label.split("–")
    width = float(high) - float(low)
    unit = "point" if width == 1 else "points"
    return (
        f"Bands of {width:g} {unit} from {low}, lower bound included; full marks have a column "
        "of their own."
    )


def _category_table(categories: Sequence[CategoryFigures]) -> str:
    rows = [
        "<table class='categories'>",
        "<tr><th>Category</th><th>Students by points (0 to 10, then full marks)</th>"
        "<th>At full marks</th><th>Average</th><th>Tests passed</th></tr>",
    ]
    for figures in categories:
        chart = charts.mini_histogram(
            figures.bands, f"chart-points-{figures.category}", f"{figures.category}: points"
        )
        rows.append(
            f"<tr><td>{html.escape(figures.category)}</td><td>{chart}</td>"
            f"<td class='number'>{figures.at_full_marks:g}%</td>"
            f"<td class='number'>{format_points(figures.average)}</td>"
            f"<td class='number'>{figures.tests_passed:g}%</td></tr>"
        )
    return "\n".join([*rows, "</table>"])


def _columns(timed: bool, late: bool) -> list[Column]:
    """Return the students' table columns; the late ones only when a late policy was in force."""
    columns: list[Column] = [
        Column("student", "Student", _student_cell, "minmax(8rem, 2fr)", False),
        Column("score", "Score", lambda s: format_points(s.score)),
        Column("status", "Status", _status_cell, "minmax(6.5rem, 1.3fr)", False),
    ]
    if timed:
        # Only when the run reported how long each student took (see grader.summary).
        columns.append(Column("time", "Time (s)", _time_cell))
    if late:
        columns += [
            Column(
                "late",
                "Late (h)",
                lambda s: f"{s.seconds_late / 3600:.1f}" if s.seconds_late else "",
            ),
            Column("final", "Final", lambda s: format_points(s.final_score)),
        ]
    columns += [_category_column(index, category) for index, category in enumerate(CATEGORIES)]
    return columns


def _category_column(index: int, category: str) -> Column:
    """Return the column of one category's points (`index` in each summary's points)."""
    heading = html.escape(category).replace("_", "_<wbr>")
    return Column(category, heading, lambda s: format_points(s.points[index]))


def _student_cell(summary: StudentSummary) -> str:
    name = html.escape(summary.student)
    if not summary.has_feedback:
        return name
    return f"<a href='{quote(summary.student)}/{FEEDBACK_PAGE}'>{name}</a>"


def _status_cell(summary: StudentSummary) -> str:
    words = html.escape(RUN_STATUS_WORDS[summary.status])
    return f"<span title='{words}'>{summary.status}</span>"


def _time_cell(summary: StudentSummary) -> str:
    if summary.seconds is None:
        why = "not timed: none of this student's code ran (refused, unreadable or missing)"
        return f"<span title='{why}'>–</span>"
    return f"{summary.seconds:.1f}"


def _write_students_table(
    out: TextIO, students: Iterable[StudentSummary], columns: Sequence[Column], ranks: Ranks
) -> None:
    """Write the sortable table, a row at a time, each with its place in every sort."""
    lines = [
        "<div class='sortable'>",
        "<p class='note'>Sort with the ▲ ▼ in each heading. Each name opens that student's "
        "feedback page.</p>",
    ]
    for column in columns:
        for direction, words in (("up", "lowest first"), ("down", "highest first")):
            checked = " checked" if (column.key, direction) == ("student", "up") else ""
            lines.append(
                f"<input type='radio' name='sort-students' class='sort-choice' "
                f"id='sort-{column.key}-{direction}' aria-label='Sort by {column.key}, "
                f"{words}'{checked}>"
            )
    heads = "".join(
        f"<th role='columnheader' scope='col'{_number_class(column)}><span>{column.heading}</span> "
        f"<label for='sort-{column.key}-up' title='lowest first'>▲</label>"
        f"<label for='sort-{column.key}-down' title='highest first'>▼</label></th>"
        for column in columns
    )
    lines += [
        "<table class='students' role='table'>",
        f"<thead role='rowgroup'><tr role='row'>{heads}</tr></thead>",
        "<tbody role='rowgroup'>",
    ]
    out.write("\n".join(lines))
    for position, summary in enumerate(students):
        order = ";".join(
            f"--{column.key}-{direction}:{ranks[column.key, direction][position]}"
            for column in columns
            for direction in ("up", "down")
        )
        cells = "".join(
            f"<td role='cell'{_number_class(column)}>{column.cell(summary)}</td>"
            for column in columns
        )
        out.write(
            f"\n<tr role='row' data-student='{html.escape(summary.student)}' "
            f"style='{order}'>{cells}</tr>"
        )
    out.write("\n</tbody>\n</table>\n</div>")


def _number_class(column: Column) -> str:
    return " class='number'" if column.numeric else ""


def _sort_style(columns: Sequence[Column]) -> str:
    widths = " ".join(column.width for column in columns)
    rules = [
        f".students thead tr,.students tbody tr{{display:grid;grid-template-columns:{widths}}}"
    ]
    for column in columns:
        for direction in ("up", "down"):
            choice = f"#sort-{column.key}-{direction}"
            label = f"label[for=sort-{column.key}-{direction}]"
            rules.append(
                f"{choice}:checked~table tbody tr{{order:var(--{column.key}-{direction})}}"
                f"{choice}:checked~table {label}{{color:#fff;background:#3b6ea5}}"
                f"{choice}:focus-visible~table {label}{{outline:2px solid #222}}"
            )
    return "".join(rules)


def _write_failures(out: TextIO, failures: Sequence[TestFailures], tests: int) -> None:
    """Write, for each hidden test answered wrongly, who did: a few names each, then a count."""
    if not failures:
        out.write('<p class="test-failures">No hidden test was answered wrongly.</p>')
        return
    out.write(
        f"<p>{counted(len(failures), 'hidden test')} (of {tests} cases in all) were answered "
        "wrongly by at least one student, the most missed first. Open one to see who; a "
        "test's cases count together. Runs that stopped early are listed below instead.</p>\n"
        "<div class='test-failures'>"
    )
    for failure in failures:
        shown = failure.students[:STUDENT_NAMES_SHOWN]
        names = ", ".join(
            _failed_by(student, count, failure.cases, failure.with_feedback)
            for student, count in shown
        )
        more = failure.total - len(shown)
        if more > 0:
            names += f", and {more} more (see item-analysis.csv)"
        out.write(
            "\n<details class='test-failure'><summary>"
            f"<span class='count'>{counted(failure.total, 'student')}</span> "
            f"{html.escape(failure.description)} <span class='category'>"
            f"({html.escape(failure.category)})</span></summary>"
            f"<p>Answered wrongly by {names}.</p>"
            f"<p class='note'>Test <code>{html.escape(failure.test_id)}</code>, "
            f"{counted(failure.cases, 'case')}.</p></details>"
        )
    out.write("\n</div>")


def _failed_by(student: str, count: int, cases: int, linked: frozenset[str]) -> str:
    name = html.escape(student)
    if student in linked:
        name = f"<a href='{quote(student)}/{FEEDBACK_PAGE}'>{name}</a>"
    return name if cases == 1 else f"{name} ({count} of {cases} cases)"


def _write_stopped_table(out: TextIO, students: Iterable[StudentSummary]) -> None:
    """Write the table of the graded students whose run stopped; a sentence when none did."""
    rows = (
        f"\n<tr><td>{html.escape(summary.student)}</td><td>{html.escape(what)}</td></tr>"
        for summary in students
        if summary.status != MISSING and (what := stopped_run(summary)) is not None
    )
    first = next(rows, None)
    if first is None:
        out.write('<p class="stopped-runs">Every run finished in time, without a crash.</p>')
        return
    out.write('<table class="stopped-runs">\n<tr><th>Student</th><th>What happened</th></tr>')
    out.write(first)
    out.writelines(rows)
    out.write("\n</table>")
