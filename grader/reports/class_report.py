"""The class report: one offline HTML page that shows how a whole class did, and its item analysis.

    write_class_report(book.summaries(), out_dir, catalogue)
    # writes out_dir/report.html and out_dir/item-analysis.csv

Everything here is built from StudentSummary values (grader.summary), a few numbers and one byte
per hidden test for each student, never from every outcome of every student. The page holds the
score distribution in bands fine enough for a class that mostly passes, each category's
distribution and share of students at full marks, a sortable table of students linking each
one's feedback page, for each hidden test who answered it wrongly, and the runs that did not
finish. Charts are inline SVG and the table sorts with CSS alone: no script, no style sheet or
font from the network, so the page opens anywhere, offline, even where scripts are blocked
(JupyterLab shows HTML files without running them). The same summaries give the same bytes.
"""

import csv
import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import median, quantiles

from grader.gradebook.summary import CatalogueTest, StudentSummary, error_summary, summarize
from grader.model import (
    CATEGORIES,
    MISSING,
    NOT_JUDGED,
    POINTS_PER_CATEGORY,
    STOPPED_STATUSES,
    Grade,
    RunStatus,
    TestOutcome,
)
from grader.reports import class_page
from grader.reports.charts import Bar
from grader.reports.class_page import counted
from grader.reports.feedback import STATUS_WORDS, format_points
from grader.reports.files import write_atomically

REPORT_FILE = "report.html"
ITEM_ANALYSIS_FILE = "item-analysis.csv"
CLASS_FILES = (REPORT_FILE, ITEM_ANALYSIS_FILE)

CENTS = 100
# Band widths tried, in cents, finest first: the finest that needs at most MAX_BANDS bands from
# the lowest score to full marks is used, so a class that mostly passes is spread out (one-point
# bands from 0 to 70, half points when every score is within 35 points of full marks).
BAND_WIDTHS = (50, 100, 200, 250, 500, 1000)
MAX_BANDS = 70
AXIS_LABELS = 8  # at most this many band boundaries are written under the score chart
# A category's points in one-point bands, and full marks apart.
CATEGORY_BANDS = POINTS_PER_CATEGORY


@dataclass(frozen=True)
class CategoryFigures:
    """How the class did in one category."""

    category: str
    bands: tuple[Bar, ...]  # students per one-point band, then at full marks
    at_full_marks: float  # percent of graded students
    average: float
    tests_passed: float  # percent of the judged tests passed, over the class


@dataclass(frozen=True)
class TestFailures:
    """One hidden test (all its cases) and the students who answered it wrongly."""

    category: str
    description: str
    test_id: str  # without the case, as in the item-analysis columns before "["
    cases: int
    students: tuple[tuple[str, int], ...]  # (student, cases failed), most first


def graded(summaries: Iterable[StudentSummary]) -> list[StudentSummary]:
    """Return the summaries of students who sent something: the class's figures are theirs."""
    return [s for s in summaries if s.status != MISSING]


def score_bands(summaries: Sequence[StudentSummary]) -> list[Bar]:
    """Return the score histogram: equal bands from the lowest score up, then full marks apart."""
    top = round(max((s.max_score for s in summaries), default=70.0) * CENTS)
    scores = [round(s.score * CENTS) for s in graded(summaries)]
    low = min((score for score in scores if score < top), default=max(0, top - 1000))
    for width in BAND_WIDTHS:
        start = low // width * width
        count = math.ceil((top - start) / width)
        if count <= MAX_BANDS:
            break
    step = _label_step(width, count)
    bars = []
    for index in range(count):
        lower, upper = start + index * width, min(top, start + (index + 1) * width)
        inside = sum(lower <= score < upper for score in scores)
        label = f"{_points(lower)}–{_points(upper)}"
        axis = _points(lower) if lower % step == 0 else ""
        title = f"{_points(lower)} to under {_points(upper)} points: {counted(inside, 'student')}"
        bars.append(Bar(label, inside, title, axis))
    full = sum(score >= top for score in scores)
    title = f"Full marks ({_points(top)} points): {counted(full, 'student')}"
    bars.append(Bar("full marks", full, title, _points(top) + " ✓", css="bar full"))
    return bars


def _label_step(width: int, count: int) -> int:
    """Return the spacing, in cents, of the band boundaries written under the score chart."""
    for multiple in (1, 2, 4, 5, 10, 20, 40):
        if count / multiple <= AXIS_LABELS:
            return width * multiple
    return width * count


def score_figures(summaries: Sequence[StudentSummary]) -> str:
    """Return one sentence with the class's median, quartiles and share at full marks."""
    scores = sorted(s.score for s in graded(summaries))
    if not scores:
        return "No student was graded."
    full = sum(s.score >= s.max_score for s in graded(summaries))
    parts = [f"Median {format_points(median(scores))}"]
    if len(scores) >= 2:
        low, _, high = quantiles(scores, n=4, method="inclusive")
        parts.append(f"middle half from {format_points(low)} to {format_points(high)}")
    parts.append(f"{_percent(full, len(scores))}% at full marks")
    return "; ".join(parts) + "."


def category_figures(
    summaries: Sequence[StudentSummary], catalogue: Sequence[CatalogueTest]
) -> list[CategoryFigures]:
    """Return how the graded students did in each category."""
    students = graded(summaries)
    figures = []
    for index, category in enumerate(CATEGORIES):
        cents = [round(s.points[index] * CENTS) for s in students]
        full = POINTS_PER_CATEGORY * CENTS
        bars = []
        for band in range(CATEGORY_BANDS):
            lower, upper = band * full // CATEGORY_BANDS, (band + 1) * full // CATEGORY_BANDS
            inside = sum(lower <= c < upper for c in cents)
            label = f"{_points(lower)}–{_points(upper)}"
            bars.append(
                Bar(
                    label,
                    inside,
                    f"{category} {label} points: {counted(inside, 'student')}",
                )
            )
        at_full = sum(c >= full for c in cents)
        title = f"{category} full marks: {counted(at_full, 'student')}"
        bars.append(Bar("full marks", at_full, title, css="bar full"))
        average = sum(cents) / len(cents) / CENTS if cents else 0.0
        passed, judged = _tests_passed(students, catalogue, category)
        figures.append(
            CategoryFigures(
                category,
                tuple(bars),
                _percent(at_full, len(students)),
                average,
                _percent(passed, judged),
            )
        )
    return figures


def _tests_passed(
    students: Sequence[StudentSummary], catalogue: Sequence[CatalogueTest], category: str
) -> tuple[int, int]:
    """Return (passed, judged) over the class for the tests of `category`."""
    indexes = [i for i, test in enumerate(catalogue) if test.category == category]
    passed = judged = 0
    for summary in students:
        for index in indexes:
            status = summary.status_of(index)
            if status is not None and status != NOT_JUDGED:
                judged += 1
                passed += status == "passed"
    return passed, judged


def full_marks_bars(figures: Sequence[CategoryFigures], students: int) -> list[Bar]:
    """Return one Bar per category: the percentage of students with all its points."""
    return [
        Bar(
            f.category,
            f.at_full_marks,
            f"{f.category}: {f.at_full_marks:g}% of {counted(students, 'student')} at full marks",
        )
        for f in figures
    ]


def test_failures(
    summaries: Sequence[StudentSummary], catalogue: Sequence[CatalogueTest]
) -> list[TestFailures]:
    """Return, for each hidden test any student answered wrongly, who did; most students first.

    A test's cases count together: a student counts once, with how many of its cases they got
    wrong. Only wrong answers count: a run that stopped early says nothing about which concepts
    were misunderstood (stopped runs have a list of their own).
    """
    groups: dict[tuple[str, str], list[int]] = {}
    for index, test in enumerate(catalogue):
        groups.setdefault((test.category, test.description), []).append(index)
    group_of = {index: key for key, indexes in groups.items() for index in indexes}
    failing: dict[tuple[str, str], dict[str, int]] = {key: {} for key in groups}
    for summary in graded(summaries):
        for index in summary.failed_tests():
            if index in group_of:
                students = failing[group_of[index]]
                students[summary.student] = students.get(summary.student, 0) + 1
    order = {key: position for position, key in enumerate(groups)}
    result = []
    for key, students in failing.items():
        if students:
            first = catalogue[groups[key][0]]
            ranked = sorted(students.items(), key=lambda item: (-item[1], item[0]))
            result.append(
                TestFailures(
                    key[0], key[1], first.test_id.split("[")[0], len(groups[key]), tuple(ranked)
                )
            )
    return sorted(result, key=lambda t: (-len(t.students), order[(t.category, t.description)]))


def stopped_runs(summaries: Sequence[StudentSummary]) -> list[tuple[str, str]]:
    """Return (student, what happened) for every student whose code did not run to the end."""
    rows = []
    for summary in sorted(graded(summaries), key=lambda s: s.student):
        stopped = {status: len(summary.tests_with(status)) for status in STOPPED_STATUSES}
        stopped = {status: count for status, count in stopped.items() if count}
        if summary.status == "completed" and not stopped:
            continue
        if summary.status == "completed":
            parts = ["the run finished"]
        else:
            parts = [f"the run stopped: {RUN_STATUS_WORDS[summary.status]}"]
        parts += [f"{counted(n, 'test')} {STATUS_WORDS[s]}" for s, n in sorted(stopped.items())]
        rows.append((summary.student, "; ".join(parts)))
    return rows


# How the report words each run status (grader.model.RUN_STATUSES), in the students' table.
RUN_STATUS_WORDS: dict[str, str] = {
    RunStatus.COMPLETED: "every hidden test ran",
    RunStatus.TIMEOUT: "timed out",
    RunStatus.CRASH: "crashed",
    RunStatus.ERROR: "could not run",
    RunStatus.UNREADABLE: "the submission could not be read",
    RunStatus.MISSING: "no submission was received",
}


def item_analysis_csv(
    summaries: Sequence[StudentSummary], catalogue: Sequence[CatalogueTest]
) -> str:
    """Return the item-analysis table: one row per student, one column per hidden test case.

    A cell is 1 for a passed test, 0 for one that earned nothing (a wrong answer, or code that
    stopped before answering), and empty where the test did not judge this student (another
    category's rule decided the case, or nothing was submitted).
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", "status", "score", *(test.test_id for test in catalogue)])
    for summary in sorted(summaries, key=lambda s: s.student):
        cells = []
        for index in range(len(catalogue)):
            status = summary.status_of(index)
            cells.append("" if status in (None, NOT_JUDGED) else "1" if status == "passed" else "0")
        writer.writerow([summary.student, summary.status, format_points(summary.score), *cells])
    return buffer.getvalue()


def class_report_html(
    items: Iterable[StudentSummary | Grade], catalogue: Sequence[CatalogueTest] | None = None
) -> str:
    """Return the class report page for summaries (or Grades, summarized here)."""
    summaries, catalogue = _as_summaries(list(items), catalogue)
    summaries = sorted(summaries, key=lambda s: s.student)
    figures = category_figures(summaries, catalogue)
    return class_page.render(
        class_page.Figures(
            summaries=summaries,
            bands=score_bands(summaries),
            score_sentence=score_figures(summaries),
            categories=figures,
            full_marks=full_marks_bars(figures, len(graded(summaries))),
            failures=test_failures(summaries, catalogue),
            tests=len(catalogue),
            stopped=stopped_runs(summaries),
            status_words=RUN_STATUS_WORDS,
        )
    )


def write_class_report(
    items: Iterable[StudentSummary | Grade],
    out_dir: str | Path,
    catalogue: Sequence[CatalogueTest] | None = None,
) -> Path:
    """Write report.html and item-analysis.csv in out_dir; return the report's path.

    A student's result that the page cannot show is shown as an error instead, so one odd
    result never costs the class its report.
    """
    summaries, catalogue = _as_summaries(list(items), catalogue, safely=True)
    out_dir = Path(out_dir)
    write_atomically(out_dir / ITEM_ANALYSIS_FILE, item_analysis_csv(summaries, catalogue))
    path = out_dir / REPORT_FILE
    write_atomically(path, class_report_html(summaries, catalogue))
    return path


def _as_summaries(
    items: Sequence[StudentSummary | Grade],
    catalogue: Sequence[CatalogueTest] | None,
    safely: bool = False,
) -> tuple[list[StudentSummary], tuple[CatalogueTest, ...]]:
    """Return (summaries, catalogue) for summaries or Grades; a catalogue is read off Grades."""
    if catalogue is None:
        listed: dict[str, TestOutcome] = {}
        for item in items:
            if isinstance(item, Grade):
                listed.update((o.test_id, o) for o in item.run.outcomes if o.test_id not in listed)
        catalogue = tuple(listed.values())
    summaries: list[StudentSummary] = []
    for item in items:
        if isinstance(item, StudentSummary):
            summaries.append(item)
        elif safely:
            summaries.append(_summary_or_error(item, catalogue))
        else:
            summaries.append(summarize(item, catalogue))
    return summaries, tuple(catalogue)


def _summary_or_error(grade: Grade, catalogue: Sequence[CatalogueTest]) -> StudentSummary:
    try:
        return summarize(grade, catalogue)
    except (TypeError, ValueError, AttributeError):
        return error_summary(grade.run.submission.student)


def _points(cents: int) -> str:
    return f"{cents / CENTS:g}"


def _percent(part: int, whole: int) -> float:
    return round(100 * part / whole, 1) if whole else 0.0
