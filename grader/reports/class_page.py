"""The class report's HTML: sections, the sortable students' table and the style, all inline.

The students' table sorts without a script: a radio button per column and direction sits before
the table, each row carries its rank for every sort as a CSS custom property, and the checked
button's rule sets every row's flex `order` to that rank. The ▲ ▼ in each heading are labels for
those buttons, so a click, or the keyboard, sorts. grader.class_report computes the figures.
"""

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote

from grader.gradebook.summary import StudentSummary
from grader.model import CATEGORIES, MISSING
from grader.reports import charts
from grader.reports.feedback import format_points

if TYPE_CHECKING:  # class_report imports this module
    from grader.reports.class_report import CategoryFigures, TestFailures

FEEDBACK_PAGE = "feedback.html"
SortKey = str | float | tuple[bool, float]  # what a column of the students' table sorts by
STUDENT_NAMES_SHOWN = 60  # per hidden test, before "and N more"


@dataclass(frozen=True)
class Figures:
    """Everything the page shows, worked out by grader.class_report."""

    summaries: Sequence[StudentSummary]
    bands: Sequence[charts.Bar]
    score_sentence: str
    categories: Sequence["CategoryFigures"]
    full_marks: Sequence[charts.Bar]
    failures: Sequence["TestFailures"]
    tests: int
    stopped: Sequence[tuple[str, str]]
    status_words: dict[str, str]


@dataclass(frozen=True)
class Column:
    """One column of the students' table: its heading, its cells and how it sorts."""

    key: str
    heading: str
    cell: Callable[[StudentSummary], str]  # HTML
    sort_key: Callable[[StudentSummary], SortKey]  # ascending; ties go by student id
    width: str = "minmax(4.8rem, 1fr)"
    numeric: bool = True  # right-aligned


def render(figures: Figures) -> str:
    """Return the whole page."""
    summaries = figures.summaries
    graded = [s for s in summaries if s.status != MISSING]
    missing = len(summaries) - len(graded)
    average = format_points(sum(s.score for s in graded) / len(graded)) if graded else "–"
    top = format_points(summaries[0].max_score) if summaries else "–"
    opening = f"{len(graded)} students graded. Average score {average} out of {top}."
    if missing:
        opening += (
            f" Left out of the figures: {counted(missing, 'student')} on the roster who sent "
            "nothing (status missing, 0 points)."
        )
    columns = _columns(summaries, figures.status_words)
    sections = [
        "<h1>Class report</h1>",
        f"<p>{html.escape(opening)} {html.escape(figures.score_sentence)}</p>",
        "<h2>Score distribution</h2>",
        charts.column_chart(figures.bands, "chart-scores", "Students by score band"),
        f"<p class='note'>{html.escape(_bands_note(figures.bands))}</p>",
        "<h2>Categories</h2>",
        "<p>The share of students with all of each category's points:</p>",
        charts.row_chart(figures.full_marks, "chart-categories", "Students at full marks"),
        _category_table(figures.categories),
        "<h2>Students</h2>",
        _students_table(summaries, columns),
        "<h2>Hidden tests answered wrongly</h2>",
        _failures(figures.failures, figures.tests, summaries),
        "<h2>Runs that timed out or crashed</h2>",
        _stopped_table(figures.stopped),
        "<h2>Files</h2>",
        "<p><a href='grades.csv'>grades.csv</a> (every student's points) and "
        "<a href='item-analysis.csv'>item-analysis.csv</a> (one row per student, one column per "
        "hidden test case: 1 passed, 0 earned nothing, empty not judged).</p>",
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>Class report</title>\n<style>{_STYLE}{_sort_style(columns)}</style>\n"
        "</head>\n<body>\n" + "\n".join(sections) + "\n</body>\n</html>\n"
    )


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


def _category_table(categories: Sequence["CategoryFigures"]) -> str:
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


def _columns(summaries: Sequence[StudentSummary], status_words: dict[str, str]) -> list[Column]:
    """Return the students' table columns; the late ones only when a late policy was in force."""
    columns: list[Column] = [
        Column(
            "student", "Student", _student_cell, lambda s: s.student, "minmax(8rem, 2fr)", False
        ),
        Column("score", "Score", lambda s: format_points(s.score), lambda s: s.score),
        Column(
            "status",
            "Status",
            lambda s: f"<span title='{html.escape(status_words[s.status])}'>{s.status}</span>",
            lambda s: s.status,
            "minmax(6.5rem, 1.3fr)",
            False,
        ),
    ]
    if any(s.seconds is not None for s in summaries):
        # Only when the run reported how long each student took (see grader.summary).
        columns.append(
            Column("time", "Time (s)", _time_cell, lambda s: (s.seconds is None, s.seconds or 0))
        )
    if any(s.submitted for s in summaries):
        columns += [
            Column(
                "late",
                "Late (h)",
                lambda s: f"{s.seconds_late / 3600:.1f}" if s.seconds_late else "",
                lambda s: s.seconds_late,
            ),
            Column(
                "final", "Final", lambda s: format_points(s.final_score), lambda s: s.final_score
            ),
        ]
    columns += [_category_column(index, category) for index, category in enumerate(CATEGORIES)]
    return columns


def _category_column(index: int, category: str) -> Column:
    """Return the column of one category's points (`index` in each summary's points)."""
    heading = html.escape(category).replace("_", "_<wbr>")
    return Column(
        category,
        heading,
        lambda s: format_points(s.points[index]),
        lambda s: s.points[index],
    )


def _student_cell(summary: StudentSummary) -> str:
    name = html.escape(summary.student)
    if not summary.has_feedback:
        return name
    return f"<a href='{quote(summary.student)}/{FEEDBACK_PAGE}'>{name}</a>"


def _time_cell(summary: StudentSummary) -> str:
    if summary.seconds is None:
        why = "not timed: none of this student's code ran (refused, unreadable or missing)"
        return f"<span title='{why}'>–</span>"
    return f"{summary.seconds:.1f}"


def _students_table(summaries: Sequence[StudentSummary], columns: Sequence[Column]) -> str:
    ranks = _ranks(summaries, columns)
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
    for position, summary in enumerate(summaries):
        order = ";".join(
            f"--{column.key}-{direction}:{ranks[column.key, direction][position]}"
            for column in columns
            for direction in ("up", "down")
        )
        cells = "".join(
            f"<td role='cell'{_number_class(column)}>{column.cell(summary)}</td>"
            for column in columns
        )
        lines.append(
            f"<tr role='row' data-student='{html.escape(summary.student)}' "
            f"style='{order}'>{cells}</tr>"
        )
    lines += ["</tbody>", "</table>", "</div>"]
    return "\n".join(lines)


def _number_class(column: Column) -> str:
    return " class='number'" if column.numeric else ""


def _ranks(
    summaries: Sequence[StudentSummary], columns: Sequence[Column]
) -> dict[tuple[str, str], list[int]]:
    """Return {(column, direction): rank of each summary}, ties ordered by student id."""
    ranks: dict[tuple[str, str], list[int]] = {}
    positions = range(len(summaries))
    for column in columns:
        keys = [column.sort_key(s) for s in summaries]
        ascending = sorted(positions, key=lambda p: (keys[p], summaries[p].student))
        descending = sorted(ascending, key=lambda p: keys[p], reverse=True)
        for direction, order in (("up", ascending), ("down", descending)):
            rank = [0] * len(summaries)
            for place, p in enumerate(order):
                rank[p] = place
            ranks[column.key, direction] = rank
    return ranks


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


def _failures(
    failures: Sequence["TestFailures"], tests: int, summaries: Sequence[StudentSummary]
) -> str:
    if not failures:
        return '<p class="test-failures">No hidden test was answered wrongly.</p>'
    linked = {s.student for s in summaries if s.has_feedback}
    lines = [
        f"<p>{counted(len(failures), 'hidden test')} (of {tests} cases in all) were answered "
        "wrongly by at least one student, the most missed first. Open one to see who; a "
        "test's cases count together. Runs that stopped early are listed below instead.</p>",
        "<div class='test-failures'>",
    ]
    for failure in failures:
        shown = failure.students[:STUDENT_NAMES_SHOWN]
        names = ", ".join(
            _failed_by(student, count, failure.cases, linked) for student, count in shown
        )
        more = len(failure.students) - len(shown)
        if more > 0:
            names += f", and {more} more (see item-analysis.csv)"
        lines.append(
            "<details class='test-failure'><summary>"
            f"<span class='count'>{counted(len(failure.students), 'student')}</span> "
            f"{html.escape(failure.description)} <span class='category'>"
            f"({html.escape(failure.category)})</span></summary>"
            f"<p>Answered wrongly by {names}.</p>"
            f"<p class='note'>Test <code>{html.escape(failure.test_id)}</code>, "
            f"{counted(failure.cases, 'case')}.</p></details>"
        )
    lines.append("</div>")
    return "\n".join(lines)


def _failed_by(student: str, count: int, cases: int, linked: set[str]) -> str:
    name = html.escape(student)
    if student in linked:
        name = f"<a href='{quote(student)}/{FEEDBACK_PAGE}'>{name}</a>"
    return name if cases == 1 else f"{name} ({count} of {cases} cases)"


def _stopped_table(rows: Sequence[tuple[str, str]]) -> str:
    if not rows:
        return '<p class="stopped-runs">Every run finished in time, without a crash.</p>'
    lines = ['<table class="stopped-runs">', "<tr><th>Student</th><th>What happened</th></tr>"]
    lines += [
        f"<tr><td>{html.escape(student)}</td><td>{html.escape(what)}</td></tr>"
        for student, what in rows
    ]
    return "\n".join([*lines, "</table>"])


def counted(number: int, noun: str) -> str:
    """Return "1 student", "2 students": a number and its noun."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


_STYLE = (
    "body{font-family:sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;"
    "line-height:1.5;color:#222}"
    "table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #bbb;"
    "padding:.25rem .5rem;text-align:left}.number{text-align:right}"
    ".note{color:#555;font-size:.9rem}"
    ".chart .bar{fill:#3b6ea5}.chart .bar.full{fill:#2e7d32}.chart .track{fill:#e8edf3}"
    ".chart .axis{stroke:#999}.chart text{font-size:12px;fill:#222}"
    ".chart text.count{font-size:10px}svg.chart{max-width:100%;height:auto}"
    ".sortable{position:relative;overflow-x:auto}"
    ".sort-choice{position:absolute;opacity:0;width:1px;height:1px;margin:0}"
    ".students{display:block;border:1px solid #bbb}.students thead,.students tbody{display:flex;"
    "flex-direction:column}.students th,.students td{border:0;border-bottom:1px solid #ddd;"
    "overflow-wrap:anywhere}.students th{background:#f2f4f7;font-size:.85rem;overflow-wrap:normal}"
    ".students label{cursor:pointer;padding:0 .15rem;border-radius:3px;color:#3b6ea5}"
    ".test-failure{margin:.35rem 0}.test-failure summary{cursor:pointer}"
    ".test-failure .count{display:inline-block;min-width:6.5rem;font-weight:bold}"
    ".category{color:#555}"
)
