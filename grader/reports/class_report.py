"""The class report: one offline HTML page that shows how a whole class did, and its item analysis.

    write_class_report(book.summaries(), out_dir, catalogue)
    # writes out_dir/report.html and out_dir/item-analysis.csv

Everything here is built from StudentSummary values (grader.reports.summary), a few numbers and
one byte per hidden test for each student, never from every outcome of every student. The page
holds the score distribution in bands fine enough for a class that mostly passes, each
category's distribution and share of students at full marks, a sortable table of students
linking each one's feedback page, for each hidden test who answered it wrongly, and the runs
that did not finish. Charts are inline SVG and the table sorts with CSS alone: no script, no
style sheet or font from the network, so the page opens anywhere, offline, even where scripts
are blocked (JupyterLab shows HTML files without running them). The same summaries give the
same bytes.

The class is never held in memory at once: the summaries are read in a few passes (figures and
the item analysis, then the students' table, then the runs that stopped if any did) and both
files are written as streams, so a class of thousands costs a few hundred bytes per student.
"""

import io
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TextIO, cast

from grader.model import MISSING, TEST_STATUSES, Grade, TestOutcome
from grader.outputs import ITEM_ANALYSIS_FILE, REPORT_FILE, atomic_writer
from grader.reports import class_page, spreadsheet
from grader.reports.charts import Bar
from grader.reports.class_figures import (
    CategoryFigures,
    ClassFigures,
    ClassTally,
    OutOfOrder,
    TestFailures,
)
from grader.reports.class_runs import RUN_STATUS_WORDS, stopped_run
from grader.reports.class_scores import MAX_BANDS
from grader.reports.feedback import format_points
from grader.reports.similarity import similarity_section
from grader.reports.store import is_stored
from grader.reports.summary import (
    NO_VERDICT,
    CatalogueTest,
    StudentSummary,
    error_summary,
    summarize,
)
from grader.similarity.pairs import Similarity

__all__ = [
    "CLASS_FILES",
    "MAX_BANDS",
    "RUN_STATUS_WORDS",
    "CategoryFigures",
    "TestFailures",
    "category_figures",
    "class_report_html",
    "item_analysis_csv",
    "score_bands",
    "score_figures",
    "stopped_runs",
    "test_failures",
    "write_class_report",
]

CLASS_FILES = (REPORT_FILE, ITEM_ANALYSIS_FILE)

# An item-analysis cell for each verdict byte: 1 passed, 0 earned nothing, empty not judged.
_CELLS = {code: "1" if status == "passed" else "0" for code, status in enumerate(TEST_STATUSES)}
_CELLS.update({NO_VERDICT: "", TEST_STATUSES.index("not_judged"): ""})


def write_class_report(
    items: Iterable[StudentSummary | Grade],
    out_dir: str | Path,
    catalogue: Sequence[CatalogueTest] | None = None,
    similar: Similarity | None = None,
) -> Path:
    """Write report.html and item-analysis.csv in out_dir; return the report's path.

    `similar`, what `grade --similarity` found (grader.similarity), adds its section to the page.

    `items` is a list or tuple of summaries or Grades in any order, or any other sequence of
    summaries already sorted by student id (the class book's), which is only ever read a
    summary at a time. A student's result that the page cannot show is shown as an error
    instead, so one odd result never costs the class its report.
    """
    summaries, catalogue = _by_student(items, catalogue, safely=True)
    section = similarity_section(similar) if similar is not None else ""
    try:
        return _write(summaries, Path(out_dir), catalogue, section)
    except OutOfOrder:
        # Not by student id after all: sorted, the class is held, but every rank is right.
        ordered = sorted(summaries, key=lambda s: s.student)
        return _write(ordered, Path(out_dir), catalogue, section)


def _write(
    summaries: Sequence[StudentSummary],
    out_dir: Path,
    catalogue: Sequence[CatalogueTest],
    similar: str,
) -> Path:
    """Write both files from summaries by student id: the item analysis with the figures."""
    with atomic_writer(out_dir / ITEM_ANALYSIS_FILE) as table:
        figures = _tally(summaries, catalogue, table)
    path = out_dir / REPORT_FILE
    with atomic_writer(path) as page:
        class_page.write_page(page, figures, summaries, similar)
    return path


def class_report_html(
    items: Iterable[StudentSummary | Grade], catalogue: Sequence[CatalogueTest] | None = None
) -> str:
    """Return the class report page for summaries (or Grades, summarized here)."""
    summaries, catalogue = _by_student(items, catalogue)
    try:
        figures = _tally(summaries, catalogue)
    except OutOfOrder:
        summaries = sorted(summaries, key=lambda s: s.student)
        figures = _tally(summaries, catalogue)
    page = io.StringIO()
    class_page.write_page(page, figures, summaries)
    return page.getvalue()


def item_analysis_csv(
    summaries: Iterable[StudentSummary], catalogue: Sequence[CatalogueTest]
) -> str:
    """Return the item-analysis table: one row per student, one column per hidden test case.

    A cell is 1 for a passed test, 0 for one that earned nothing (a wrong answer, or code that
    stopped before answering), and empty where the test did not judge this student (another
    category's rule decided the case, or nothing was submitted).
    """
    table = io.StringIO()
    _tally(sorted(summaries, key=lambda s: s.student), catalogue, table)
    return table.getvalue()


def score_bands(summaries: Iterable[StudentSummary]) -> list[Bar]:
    """Return the score histogram: equal bands from the lowest score up, then full marks apart."""
    return _figures_of(summaries).bands


def score_figures(summaries: Iterable[StudentSummary]) -> str:
    """Return one sentence with the class's median, quartiles and share at full marks."""
    return _figures_of(summaries).score_sentence


def category_figures(
    summaries: Iterable[StudentSummary], catalogue: Sequence[CatalogueTest]
) -> list[CategoryFigures]:
    """Return how the graded students did in each category."""
    return _figures_of(summaries, catalogue).categories


def test_failures(
    summaries: Iterable[StudentSummary], catalogue: Sequence[CatalogueTest]
) -> list[TestFailures]:
    """Return, for each hidden test any student answered wrongly, who did; most students first.

    A test's cases count together: a student counts once, with how many of its cases they got
    wrong. Only wrong answers count: a run that stopped early says nothing about which concepts
    were misunderstood (stopped runs have a list of their own). Each names the first
    STUDENT_NAMES_SHOWN students and counts them all.
    """
    return _figures_of(summaries, catalogue).failures


def stopped_runs(summaries: Iterable[StudentSummary]) -> list[tuple[str, str]]:
    """Return (student, what happened) for every student whose code did not run to the end."""
    return [
        (summary.student, what)
        for summary in sorted(summaries, key=lambda s: s.student)
        if summary.status != MISSING and (what := stopped_run(summary)) is not None
    ]


def _figures_of(
    summaries: Iterable[StudentSummary], catalogue: Sequence[CatalogueTest] = ()
) -> ClassFigures:
    return _tally(sorted(summaries, key=lambda s: s.student), catalogue)


def _tally(
    summaries: Iterable[StudentSummary],
    catalogue: Sequence[CatalogueTest],
    item_analysis: TextIO | None = None,
) -> ClassFigures:
    """Return the figures of summaries by student id, writing the item analysis on the way."""
    tally = ClassTally(catalogue)
    writer = spreadsheet.writer(item_analysis) if item_analysis else None
    if writer:
        writer.writerow(["student", "status", "score", *(test.test_id for test in catalogue)])
    for summary in summaries:
        tally.add(summary)
        if writer:
            writer.writerow(_item_analysis_row(summary, len(catalogue)))
    return tally.figures()


def _item_analysis_row(summary: StudentSummary, tests: int) -> list[str]:
    verdicts = summary.verdicts[:tests]
    cells = [_CELLS[verdict] for verdict in verdicts] + [""] * (tests - len(verdicts))
    return [summary.student, summary.status, format_points(summary.score), *cells]


def _by_student(
    items: Iterable[StudentSummary | Grade],
    catalogue: Sequence[CatalogueTest] | None,
    safely: bool = False,
) -> tuple[Sequence[StudentSummary], tuple[CatalogueTest, ...]]:
    """Return (summaries by student id, catalogue) for the items a caller handed over.

    A list or tuple (or any iterable that is no sequence) may hold Grades, in any order: it is
    summarized and sorted here, and without a catalogue the catalogue is read off its Grades.
    Any other sequence is the class book's, summaries already by student id: it is not copied.
    """
    if is_stored(items):
        return cast(Sequence[StudentSummary], items), tuple(catalogue or ())
    listed = list(items)
    if catalogue is None:
        tests: dict[str, TestOutcome] = {}
        for item in listed:
            if isinstance(item, Grade):
                tests.update((o.test_id, o) for o in item.run.outcomes if o.test_id not in tests)
        catalogue = tuple(tests.values())
    summaries = [_summary_of(item, catalogue, safely) for item in listed]
    return sorted(summaries, key=lambda s: s.student), tuple(catalogue)


def _summary_of(
    item: StudentSummary | Grade, catalogue: Sequence[CatalogueTest], safely: bool
) -> StudentSummary:
    """Return the summary of `item`; `safely`, an error summary for a Grade no page can show."""
    if isinstance(item, StudentSummary):
        return item
    try:
        return summarize(item, catalogue)
    except (TypeError, ValueError, AttributeError):
        if not safely:
            raise
        return error_summary(item.run.submission.student)
