"""The class report's figures, tallied one student at a time into a few numbers per student.

    tally = ClassTally(catalogue)
    for summary in summaries:  # by student id
        tally.add(summary)
    figures = tally.figures()

The tally keeps no summary: for each student only the numbers a column of the students' table
sorts by (in arrays), and for the class counters per score band, category and hidden test. Of
the students who answered a hidden test wrongly it keeps the few the page names and how many
there were, so a class of thousands costs a couple of hundred bytes per student at most.
"""

from array import array
from bisect import bisect_right, insort
from collections.abc import Sequence
from dataclasses import dataclass

from grader.model import CATEGORIES, MISSING, POINTS_PER_CATEGORY, TEST_STATUSES
from grader.reports import class_ranks
from grader.reports.charts import Bar
from grader.reports.class_runs import is_stopped
from grader.reports.class_scores import CENTS, counted, percent, score_bands, score_sentence
from grader.reports.summary import NO_VERDICT, CatalogueTest, StudentSummary

# A category's points in one-point bands, and full marks apart.
CATEGORY_BANDS = POINTS_PER_CATEGORY
STUDENT_NAMES_SHOWN = 60  # per hidden test, before "and N more"
PASSED, FAILED, NOT_JUDGED = (TEST_STATUSES.index(s) for s in ("passed", "failed", "not_judged"))


class OutOfOrder(ValueError):
    """Summaries handed to a tally that do not come by student id."""


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
    students: tuple[tuple[str, int], ...]  # the first named: (student, cases failed), most first
    total: int  # every student who answered it wrongly
    with_feedback: frozenset[str]  # those of `students` whose feedback page exists


@dataclass(frozen=True)
class ClassFigures:
    """Everything the class page shows but the students' rows themselves."""

    students: int
    graded: int
    score_sum: float  # of the graded students, for their average
    top: float | None  # the first student's full marks, what the page says scores are out of
    bands: list[Bar]
    score_sentence: str
    categories: list[CategoryFigures]
    failures: list[TestFailures]
    tests: int  # hidden test cases in the catalogue
    stopped: int  # graded students whose run stopped, or whose code did in some test
    timed: bool  # some student has a time: the table has a time column
    late: bool  # some student has a submission time: the table has late columns
    ranks: class_ranks.Ranks


class ClassTally:
    """Takes the class's summaries one at a time, by student id, and keeps its figures."""

    def __init__(self, catalogue: Sequence[CatalogueTest]):
        self.catalogue = tuple(catalogue)
        groups: dict[tuple[str, str], list[int]] = {}
        for index, test in enumerate(self.catalogue):
            groups.setdefault((test.category, test.description), []).append(index)
        self._groups = list(groups.values())
        self._group_of = [0] * len(self.catalogue)
        for group, indexes in enumerate(self._groups):
            for index in indexes:
                self._group_of[index] = group
        # Per group, the students it names so far, best ranked first: (-cases failed, student,
        # whether their feedback page exists).
        self._named: list[list[tuple[int, str, bool]]] = [[] for _ in self._groups]
        self._failing = [0] * len(self._groups)  # students per group
        self._student: str | None = None  # the student being tallied, their failures and page
        self._cases_failed: dict[int, int] = {}
        self._has_feedback = False
        # Each category's tests as runs of catalogue indexes [start, end), and their verdicts.
        self._runs = [_runs_of(self.catalogue, category) for category in CATEGORIES]
        self._passed, self._judged = [0] * len(CATEGORIES), [0] * len(CATEGORIES)
        self._cents = [[0] * (CATEGORY_BANDS + 1) for _ in CATEGORIES]  # bands, then full marks
        self._cents_sum = [0] * len(CATEGORIES)
        self._first_top: float | None = None
        self._top: float | None = None
        self._at_full_marks = self._stopped = 0
        self._timed = self._late = False
        # Per student, in order: what each column of the students' table sorts by.
        self._scores, self._seconds = array("d"), array("d")  # NaN: not timed
        self._seconds_late, self._final = array("d"), array("d")
        self._points = [array("d") for _ in CATEGORIES]
        self._statuses: dict[str, int] = {}
        self._status_codes = array("B")
        self._repeats = array("L")  # positions whose student id is the one before theirs

    def add(self, summary: StudentSummary) -> None:
        """Count one student in, after every student whose id sorts before theirs.

        Raise OutOfOrder for a student whose id sorts before the last one's: ties in the
        students' table go by the order students come in, which must be their ids'.
        """
        if self._student is not None and summary.student < self._student:
            raise OutOfOrder(f"{summary.student!r} came after {self._student!r}")
        if summary.student != self._student:
            self._end_student()
            self._student, self._cases_failed, self._has_feedback = summary.student, {}, False
        else:
            self._repeats.append(len(self._scores))
        self._has_feedback = self._has_feedback or summary.has_feedback
        if self._first_top is None:
            self._first_top = summary.max_score
        if self._top is None or summary.max_score > self._top:
            self._top = summary.max_score
        self._keep_sort_keys(summary)
        if summary.status != MISSING:
            self._at_full_marks += summary.score >= summary.max_score
            self._stopped += is_stopped(summary)
            self._count_categories(summary)
            self._count_tests(summary)

    def figures(self) -> ClassFigures:
        """Return the class's figures; the tally is spent."""
        self._end_student()
        graded, score_sum, bands, sentence = self._score_figures()
        return ClassFigures(
            students=len(self._scores),
            graded=graded,
            score_sum=score_sum,
            top=self._first_top,
            bands=bands,
            score_sentence=sentence,
            categories=self._category_figures(graded),
            failures=self._failures(),
            tests=len(self.catalogue),
            stopped=self._stopped,
            timed=self._timed,
            late=self._late,
            ranks=self._ranks(),
        )

    def _score_figures(self) -> tuple[int, float, list[Bar], str]:
        """Return the graded students' count, score total, score bands and score sentence."""
        missing = self._statuses.get(MISSING)
        codes = self._status_codes
        graded = array(
            "d", (s for s, code in zip(self._scores, codes, strict=True) if code != missing)
        )
        bands = score_bands(graded, 70.0 if self._top is None else self._top)
        return len(graded), sum(graded), bands, score_sentence(sorted(graded), self._at_full_marks)

    def _keep_sort_keys(self, summary: StudentSummary) -> None:
        self._scores.append(summary.score)
        code = self._statuses.setdefault(summary.status, len(self._statuses))
        self._status_codes.append(code)
        self._timed = self._timed or summary.seconds is not None
        self._seconds.append(float("nan") if summary.seconds is None else summary.seconds)
        self._late = self._late or bool(summary.submitted)
        self._seconds_late.append(summary.seconds_late)
        self._final.append(summary.final_score)
        for index, keys in enumerate(self._points):
            keys.append(summary.points[index])

    def _count_categories(self, summary: StudentSummary) -> None:
        full = POINTS_PER_CATEGORY * CENTS
        lowers = [band * full // CATEGORY_BANDS for band in range(CATEGORY_BANDS)]
        for index, counts in enumerate(self._cents):
            cents = round(summary.points[index] * CENTS)
            self._cents_sum[index] += cents
            if cents >= full:
                counts[CATEGORY_BANDS] += 1
            elif cents >= 0:
                counts[bisect_right(lowers, cents) - 1] += 1

    def _count_tests(self, summary: StudentSummary) -> None:
        verdicts = summary.verdicts[: len(self.catalogue)]
        for category, runs in enumerate(self._runs):
            for start, end in runs:
                part = verdicts[start:end]
                judged = len(part) - part.count(NO_VERDICT) - part.count(NOT_JUDGED)
                self._judged[category] += judged
                self._passed[category] += part.count(PASSED)
        index = verdicts.find(FAILED)
        while index >= 0:
            group = self._group_of[index]
            self._cases_failed[group] = self._cases_failed.get(group, 0) + 1
            index = verdicts.find(FAILED, index + 1)

    def _end_student(self) -> None:
        """Name the student just tallied among those who failed a test, if among the first."""
        student = self._student or ""
        for group, cases in self._cases_failed.items():
            self._failing[group] += 1
            named = self._named[group]
            if len(named) < STUDENT_NAMES_SHOWN or (-cases, student) < named[-1][:2]:
                insort(named, (-cases, student, self._has_feedback))
                del named[STUDENT_NAMES_SHOWN:]
        self._cases_failed = {}

    def _category_figures(self, graded: int) -> list[CategoryFigures]:
        full = POINTS_PER_CATEGORY * CENTS
        figures = []
        for index, category in enumerate(CATEGORIES):
            counts = self._cents[index]
            bars = []
            for band in range(CATEGORY_BANDS):
                lower, upper = band * full // CATEGORY_BANDS, (band + 1) * full // CATEGORY_BANDS
                label = f"{lower / CENTS:g}–{upper / CENTS:g}"
                title = f"{category} {label} points: {counted(counts[band], 'student')}"
                bars.append(Bar(label, counts[band], title))
            at_full = counts[CATEGORY_BANDS]
            title = f"{category} full marks: {counted(at_full, 'student')}"
            bars.append(Bar("full marks", at_full, title, css="bar full"))
            average = self._cents_sum[index] / graded / CENTS if graded else 0.0
            passed, judged = self._passed[index], self._judged[index]
            figures.append(
                CategoryFigures(
                    category,
                    tuple(bars),
                    percent(at_full, graded),
                    average,
                    percent(passed, judged),
                )
            )
        return figures

    def _failures(self) -> list[TestFailures]:
        failures: list[tuple[int, TestFailures]] = []
        for group, indexes in enumerate(self._groups):
            if not self._failing[group]:
                continue
            first = self.catalogue[indexes[0]]
            named = self._named[group]
            failures.append(
                (
                    group,
                    TestFailures(
                        first.category,
                        first.description,
                        first.test_id.split("[")[0],
                        len(indexes),
                        tuple((student, -cases) for cases, student, _ in named),
                        self._failing[group],
                        frozenset(student for _, student, linked in named if linked),
                    ),
                )
            )
        return [failure for _, failure in sorted(failures, key=lambda g: (-g[1].total, g[0]))]

    def _ranks(self) -> class_ranks.Ranks:
        """Return each column's places, working out one column at a time and freeing its keys."""
        count = len(self._scores)
        statuses = sorted(self._statuses)
        place_of = [statuses.index(status) for status in self._statuses]
        keys: dict[str, class_ranks.SortKeys] = {"score": self._scores}
        keys["status"] = array("B", (place_of[code] for code in self._status_codes))
        if self._timed:
            keys["time"] = class_ranks.time_keys(self._seconds)
        if self._late:
            keys.update(late=self._seconds_late, final=self._final)
        keys.update(zip(CATEGORIES, self._points, strict=True))
        self._scores = self._seconds = self._seconds_late = self._final = array("d")
        self._points, self._status_codes = [], array("B")
        return class_ranks.column_ranks(count, self._repeats, keys)


def _runs_of(catalogue: Sequence[CatalogueTest], category: str) -> list[tuple[int, int]]:
    """Return the runs [start, end) of catalogue indexes whose tests are of `category`."""
    runs: list[tuple[int, int]] = []
    for index, test in enumerate(catalogue):
        if test.category != category:
            continue
        if runs and runs[-1][1] == index:
            runs[-1] = (runs[-1][0], index + 1)
        else:
            runs.append((index, index + 1))
    return runs
