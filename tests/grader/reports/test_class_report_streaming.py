"""The class report is written without holding the class: the class book's summaries are read a
few times, one at a time, and the page and the item analysis are streamed to their files.

The class book keeps its summaries in a file: a sequence, by student id, whose every read builds
a fresh summary. The report must give the bytes a list of the same summaries gives.
"""

import random
import tracemalloc
from collections.abc import Sequence
from dataclasses import replace

from grade_builders import CATALOGUE, CLASS

from grader.model import CATEGORIES, HiddenTest, RunStatus, TestStatus
from grader.reports import class_report
from grader.reports.summary import NO_VERDICT, StudentSummary

pytestmark = []

VERDICT = {status: index for index, status in enumerate(TestStatus)}
# As many hidden test cases as the real catalogue has, four cases to a test.
LARGE_CATALOGUE = tuple(
    HiddenTest(f"{category}/test_{n}[{case}]", category, f"Test {n} of {category}.", str(case))
    for category in CATEGORIES
    for n in range(19)
    for case in range(4)
)


class StoredClass(Sequence[StudentSummary]):
    """A class as the class book keeps it: every read builds fresh summaries, by student id.

    `passes` counts the times the class was read through; `alive` how many of the summaries it
    handed out are still held somewhere, and `most_alive` the most that ever were at once.
    """

    def __init__(self, summaries, by_student=True):
        if by_student:
            summaries = sorted(summaries, key=lambda s: s.student)
        self._rows = [
            tuple(getattr(s, field) for field in StudentSummary.__slots__) for s in summaries
        ]
        self.passes = self.alive = self.most_alive = 0

    def __len__(self):
        return len(self._rows)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        summary = WatchedSummary(*self._rows[index])
        self.alive += 1
        self.most_alive = max(self.most_alive, self.alive)
        object.__setattr__(summary, "store", self)  # the summary is frozen
        return summary

    def __iter__(self):
        self.passes += 1
        for index in range(len(self)):
            yield self[index]


class WatchedSummary(StudentSummary):
    """A summary that tells its store when nothing holds it any more."""

    __slots__ = ("store",)

    def __del__(self):
        self.store.alive -= 1


class GeneratedClass(Sequence[StudentSummary]):
    """`size` students made up as they are read, so the class itself takes no memory.

    A few hundred verdict bytes each, like the real catalogue's; a student in eleven sent
    nothing, one in twelve timed out, and about one test in seven was answered wrongly.
    """

    def __init__(self, size):
        self.size, self.passes = size, 0
        chooser = random.Random(7)
        codes = [VERDICT[TestStatus.PASSED]] * 6 + [VERDICT[TestStatus.FAILED]]
        self._verdicts = [bytes(chooser.choice(codes) for _ in LARGE_CATALOGUE) for _ in range(97)]

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        if not 0 <= index < self.size:
            raise IndexError(index)
        status = RunStatus.COMPLETED
        verdicts = self._verdicts[index % 97]
        if index % 11 == 3:
            status, verdicts = RunStatus.MISSING, bytes([NO_VERDICT]) * len(LARGE_CATALOGUE)
        elif index % 12 == 5:
            status = RunStatus.TIMEOUT
            verdicts = verdicts[:300] + bytes([VERDICT[TestStatus.TIMEOUT]]) * 232
        points = tuple(float((index * 7 + n) % 11) for n in range(len(CATEGORIES)))
        return StudentSummary(
            f"student-{index:06d}",
            status,
            sum(points),
            70.0,
            points,
            verdicts[:-1] + verdicts[-1:],  # a fresh copy, as a read from disk gives
            seconds=None if index % 5 == 0 else (index % 40) / 4,
            seconds_late=3600.0 * (index % 3),
            submitted="2026-03-02T01:00:00+00:00",
            has_feedback=status != RunStatus.MISSING,
        )

    def __iter__(self):
        self.passes += 1
        for index in range(self.size):
            yield self[index]


def varied_class():
    """Return summaries with every feature of the page, in no order: the list a test may give."""
    chooser = random.Random(3)
    names = ["<b>bold</b>", "o'brien", "zoë", "名前", "a b&c", '"quoted"', "x/y?z"]
    summaries = []
    for n in range(200):
        base = chooser.choice(CLASS)
        verdicts = bytes(chooser.choice([0, 1, 1, 1, 2, 8, NO_VERDICT]) for _ in CATALOGUE)
        summaries.append(
            replace(
                base,
                student=f"{chooser.choice(names)}{n}" if n % 4 == 0 else f"s{n:03d}",
                score=chooser.choice([70.0, 65.5, 65.5, 12.25, 0.0]),
                status=chooser.choice(list(RunStatus)),
                points=tuple(chooser.choice([0.0, 5.0, 9.99, 10.0]) for _ in CATEGORIES),
                verdicts=verdicts if n % 9 else b"",
                seconds=chooser.choice([None, 0.5, 0.5, 3.0]),
                submitted="2026-03-02T01:00:00+00:00" if n % 3 == 0 else "",
                seconds_late=chooser.choice([0.0, 0.0, 7200.0]),
                late_penalty=chooser.choice([0.0, 2.0]),
                has_feedback=n % 5 != 0,
            )
        )
    chooser.shuffle(summaries)
    return summaries


def written(items, folder, catalogue):
    class_report.write_class_report(items, folder, catalogue)
    return [(folder / name).read_bytes() for name in class_report.CLASS_FILES]


def test_the_stored_class_gives_the_bytes_of_the_same_class_as_a_list(tmp_path):
    summaries = varied_class()
    as_list = written(summaries, tmp_path / "list", CATALOGUE)
    stored = StoredClass(summaries)
    assert written(stored, tmp_path / "stored", CATALOGUE) == as_list
    page = as_list[0].decode()
    # The class shows what the comparison is about: more names than a test lists, stopped
    # runs, students who sent nothing, late and time columns, ties and names to escape.
    assert "more (see item-analysis.csv)" in page and '<table class="stopped-runs">' in page
    assert "who sent nothing" in page and "Late (h)" in page and "Time (s)" in page
    assert "&lt;b&gt;bold&lt;/b&gt;" in page and "名前" in page
    assert stored.passes <= 3


def test_a_stored_class_is_read_a_few_times_one_summary_at_a_time(tmp_path):
    stored = StoredClass(varied_class())
    class_report.write_class_report(stored, tmp_path, CATALOGUE)
    assert 1 <= stored.passes <= 3
    assert stored.most_alive <= 3  # never the class: a list of it would hold all 200


def test_a_stored_class_out_of_order_is_sorted_rather_than_ranked_wrongly(tmp_path):
    summaries = varied_class()
    shuffled = StoredClass(summaries, by_student=False)
    as_list = written(summaries, tmp_path / "list", CATALOGUE)
    assert written(shuffled, tmp_path / "stored", CATALOGUE) == as_list
    assert class_report.class_report_html(shuffled, CATALOGUE) == as_list[0].decode()


def test_a_class_of_thousands_costs_a_few_hundred_bytes_per_student(tmp_path):
    def traced_peak(size):
        students = GeneratedClass(size)
        tracemalloc.start()
        try:
            class_report.write_class_report(students, tmp_path / str(size), LARGE_CATALOGUE)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert students.passes <= 3
        return peak

    small, large = traced_peak(500), traced_peak(4_000)
    # What is kept per student at the peak (measured about 200 bytes): eleven 8-byte sort keys
    # (score, time, lateness, final score, seven categories) and one status byte, until the
    # students' table's places are worked out, a column at a time, into 26 two-byte arrays,
    # while one column's sort holds a list of positions and keys (about 70 bytes). A list of
    # the class, or the page as one string, costs over 10,000 bytes per student.
    assert (large - small) / 3_500 < 300
