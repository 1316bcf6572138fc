"""The class report's HTML: sections, the sortable students' table and the style, all inline.

The students' table sorts without a script: a radio button per column and direction sits before
the table, each row carries its rank for every sort as a CSS custom property, and the checked
button's rule sets every row's flex `order` to that rank. The ▲ ▼ in each heading are labels for
those buttons, so a click, or the keyboard, sorts. grader.reports.class_figures works out the
figures; this module turns them into plain data (texts, numbers, ids, link targets) for the
Jinja2 templates in grader/reports/templates/ (class_report.html.j2 and what it includes). Their
autoescape makes every text a text: tests/grader/reports/test_class_report.py attacks each place
a student id or a test's words land. Only the charts arrive built, as Markup (charts.py, where
each of their texts is escaped), and the section on similar code (grader.reports.similarity).
The page is streamed (Template.generate(), grader.reports.templating), a student's row at a
time, so a class of thousands is never one string in memory.

The cost, measured: writing the page for the tests' generated class of 4,000 students (CPU
time, best of 7) takes 0.25 to 0.27 s with the templates against 0.14 s with the f-strings they
replaced, about 1.9 times as long; the rest of `write_class_report` (the tally and
item-analysis.csv, about 0.7 s) is unchanged, so the whole report takes about 0.97 s against
0.87 s, some 12% more.
"""

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain
from typing import TextIO
from urllib.parse import quote

from markupsafe import Markup

from grader.model import CATEGORIES, MISSING
from grader.reports import charts, templating
from grader.reports.class_figures import (
    STUDENT_NAMES_SHOWN,
    CategoryFigures,
    ClassFigures,
    TestFailures,
)
from grader.reports.class_ranks import Ranks
from grader.reports.class_runs import RUN_STATUS_WORDS, stopped_run
from grader.reports.class_scores import counted
from grader.reports.feedback import format_points
from grader.reports.summary import StudentSummary

FEEDBACK_PAGE = "feedback.html"
TEMPLATE = "class_report.html.j2"
NOT_TIMED = "not timed: none of this student's code ran (refused, unreadable or missing)"


@dataclass(frozen=True)
class Cell:
    """A table cell that is more than a text: a link (`href`) or a text with a `title`."""

    text: str
    href: str = ""
    title: str = ""


@dataclass(frozen=True)
class Column:
    """One column of the students' table: its heading, its cells and how it is laid out."""

    key: str  # also the name of its sort in ClassFigures.ranks
    heading: str  # a text; the template lets it break after each "_"
    cell: Callable[[StudentSummary], Cell | str]
    width: str = "minmax(4.8rem, 1fr)"
    numeric: bool = True  # right-aligned


@dataclass(frozen=True)
class Row:
    """One student's row: their id, their rank in every sort (a style) and their cells."""

    student: str
    order: str  # "--score-up:3;--score-down:1;…": column keys and numbers only
    cells: tuple[tuple[bool, Cell | str], ...]  # (right-aligned, cell)


@dataclass(frozen=True)
class CategoryRow:
    """One row of the categories' table; `chart` is the only Markup, built by charts.py."""

    name: str
    chart: Markup
    at_full_marks: str
    average: str
    tests_passed: str


@dataclass(frozen=True)
class NamedStudent:
    """A student named under a hidden test: their id, their page's link if any, their cases."""

    student: str
    href: str
    cases: str  # " (2 of 7 cases)", or empty for a test of one case


@dataclass(frozen=True)
class FailureView:
    """One hidden test answered wrongly, as the page words it."""

    students_count: str
    description: str
    category: str
    names: tuple[NamedStudent, ...]
    more: int  # students answering it wrongly beyond those named
    test_id: str
    cases_count: str


def write_page(
    out: TextIO, figures: ClassFigures, students: Iterable[StudentSummary], similar: str = ""
) -> None:
    """Write the whole page to `out`; `students` by student id, read once or twice.

    Once for the students' table, and once more for the runs that stopped if there are any.
    `similar`, if given, is the section on similar code (grader.reports.similarity), put last:
    Markup from there, and any other text is escaped.
    """
    columns = _columns(figures.timed, figures.late)
    full_marks = _full_marks_bars(figures.categories, figures.graded)
    context = {
        "columns": columns,
        "opening": f"{_opening(figures)} {figures.score_sentence}",
        "score_chart": charts.column_chart(figures.bands, "chart-scores", "Students by score band"),
        "bands_note": _bands_note(figures.bands),
        "full_marks_chart": charts.row_chart(
            full_marks, "chart-categories", "Students at full marks"
        ),
        "categories": [_category_row(category) for category in figures.categories],
        "rows": _rows(students, columns, figures.ranks),
        "failures": [_failure_view(failure) for failure in figures.failures],
        "failures_count": counted(len(figures.failures), "hidden test"),
        "tests": figures.tests,
        # Called when the page gets there, so the class is read again only after the table.
        "stopped_runs": partial(_stopped, students) if figures.stopped else None,
        "similar": similar,
    }
    templating.stream(out, TEMPLATE, context)


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


def _category_row(figures: CategoryFigures) -> CategoryRow:
    chart = charts.mini_histogram(
        figures.bands, f"chart-points-{figures.category}", f"{figures.category}: points"
    )
    return CategoryRow(
        figures.category,
        chart,
        f"{figures.at_full_marks:g}",
        format_points(figures.average),
        f"{figures.tests_passed:g}",
    )


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
    return Column(category, category, lambda s: format_points(s.points[index]))


def feedback_link(student: str) -> str:
    """Return the link to a student's feedback page, from this page's folder."""
    return f"{quote(student)}/{FEEDBACK_PAGE}"


def _student_cell(summary: StudentSummary) -> Cell | str:
    if not summary.has_feedback:
        return summary.student
    return Cell(summary.student, href=feedback_link(summary.student))


def _status_cell(summary: StudentSummary) -> Cell:
    return Cell(summary.status, title=RUN_STATUS_WORDS[summary.status])


def _time_cell(summary: StudentSummary) -> Cell | str:
    if summary.seconds is None:
        return Cell("–", title=NOT_TIMED)
    return f"{summary.seconds:.1f}"


def _rows(
    students: Iterable[StudentSummary], columns: Sequence[Column], ranks: Ranks
) -> Iterator[Row]:
    """Yield each student's row, as the template asks for it, with its place in every sort."""
    sorts = [(column.key, direction) for column in columns for direction in ("up", "down")]
    for position, summary in enumerate(students):
        order = ";".join(f"--{key}-{way}:{ranks[key, way][position]}" for key, way in sorts)
        cells = tuple((column.numeric, column.cell(summary)) for column in columns)
        yield Row(summary.student, order, cells)


def _failure_view(failure: TestFailures) -> FailureView:
    """Return how the page shows one hidden test: a few names each, then a count."""
    shown = failure.students[:STUDENT_NAMES_SHOWN]
    names = tuple(
        NamedStudent(
            student,
            feedback_link(student) if student in failure.with_feedback else "",
            "" if failure.cases == 1 else f" ({count} of {failure.cases} cases)",
        )
        for student, count in shown
    )
    return FailureView(
        counted(failure.total, "student"),
        failure.description,
        failure.category,
        names,
        failure.total - len(shown),
        failure.test_id,
        counted(failure.cases, "case"),
    )


def _stopped(students: Iterable[StudentSummary]) -> Iterator[tuple[str, str]] | None:
    """Return (student, what happened) for each graded student whose run stopped; None if none.

    Read as the template writes the table; the first is looked for here, to know which to write
    (the table, or a sentence).
    """
    rows = (
        (summary.student, what)
        for summary in students
        if summary.status != MISSING and (what := stopped_run(summary)) is not None
    )
    first = next(rows, None)
    return None if first is None else chain([first], rows)
