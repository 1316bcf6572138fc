"""Where a run keeps its students' summaries: in a temporary file, read back in student order.

    store = SummaryStore()
    store.put(summary)          # a later summary of the same student replaces the earlier one
    store.get("ada")            # that student's summary, or None
    for summary in store: ...   # every summary, by student id, read from the file

A summary is small, but a class of thousands would still hold megabytes of them, and the run's
memory must not grow with the class. So the store keeps in memory only where each student's
record starts, and every read builds a fresh StudentSummary from the file: whoever reads the
class (the class report, grades.csv, the LMS files) decides how little of it to hold at once.
The file has no name (it is gone when the store is), and only this process can read it.

Not sqlite3: the store lives and dies with one process, so it needs no crash safety or locking;
a temporary database would still need the order kept here for indexing and the encoding of the
points and verdicts, and was no faster (4,000 students: puts 0.19 s against 0.08 s).
"""

import json
import tempfile
import weakref
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

from grader.reports.summary import StudentSummary

# A record is one line of JSON: these fields, in this order; the verdicts' bytes as hex digits.
FIELDS = (
    "student",
    "status",
    "score",
    "max_score",
    "points",
    "verdicts",
    "seconds",
    "late_penalty",
    "seconds_late",
    "submitted",
    "has_feedback",
    "extended_due",
)


class SummaryStore(Sequence[StudentSummary]):
    """The summaries of a class, one per student, as a sequence sorted by student id."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the store
        # Closed when the store is collected, so no open file outlives it (nor warns that it did).
        weakref.finalize(self, self._file.close)
        self._starts: dict[str, int] = {}  # each student's record: where it starts in the file
        self._order: list[str] | None = None  # the students sorted, until the next put

    def put(self, summary: StudentSummary) -> None:
        """Keep `summary`, replacing any earlier summary of the same student."""
        if summary.student not in self._starts:
            self._order = None
        self._file.seek(0, 2)
        self._starts[summary.student] = self._file.tell()
        self._file.write(encode(summary))

    def get(self, student: str) -> StudentSummary | None:
        """Return the summary kept for `student`, or None."""
        start = self._starts.get(student)
        return None if start is None else self._read(start)

    def has(self, student: str) -> bool:
        """Say whether a summary is kept for `student`."""
        return student in self._starts

    def students(self) -> list[str]:
        """Return the students with a summary, sorted."""
        if self._order is None:
            self._order = sorted(self._starts)
        return self._order

    def __len__(self) -> int:
        return len(self._starts)

    @overload
    def __getitem__(self, index: int) -> StudentSummary: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[StudentSummary]: ...

    def __getitem__(self, index: int | slice) -> StudentSummary | Sequence[StudentSummary]:
        if isinstance(index, slice):
            return [self._read(self._starts[student]) for student in self.students()[index]]
        return self._read(self._starts[self.students()[index]])

    def __iter__(self) -> Iterator[StudentSummary]:
        # No copy of the order is needed: a put during the pass replaces it, never changes it.
        for student in self.students():
            yield self._read(self._starts[student])

    def _read(self, start: int) -> StudentSummary:
        self._file.seek(start)
        return decode(self._file.readline())


def is_stored(summaries: Iterable[object]) -> bool:
    """Say whether `summaries` is a class as a store keeps it: by student id, read as it goes.

    That is any sequence but a list or a tuple, which are a caller's own, in any order. A
    stored class is never copied into a list: that would hold the whole class in memory.
    """
    return isinstance(summaries, Sequence) and not isinstance(summaries, list | tuple)


def in_student_order(summaries: Iterable[StudentSummary]) -> Iterable[StudentSummary]:
    """Return `summaries` by student id: a stored class as it is, anything else sorted."""
    if is_stored(summaries):
        return summaries
    return sorted(summaries, key=lambda summary: summary.student)


def encode(summary: StudentSummary) -> bytes:
    """Return `summary` as one line of the store's file."""
    values = [getattr(summary, field) for field in FIELDS]
    values[FIELDS.index("verdicts")] = summary.verdicts.hex()
    # ensure_ascii keeps the line free of raw line breaks whatever a student id holds.
    return json.dumps(values, separators=(",", ":")).encode("ascii") + b"\n"


def decode(line: bytes) -> StudentSummary:
    """Return the summary that `encode` wrote as `line`."""
    values = dict(zip(FIELDS, json.loads(line), strict=True))
    values["points"] = tuple(values["points"])
    values["verdicts"] = bytes.fromhex(values["verdicts"])
    return StudentSummary(**values)
