"""Every CSV file the grader writes goes through one writer whose cells are data, never formulas.

A spreadsheet or LMS that opens a CSV runs a cell beginning with `=`, `+`, `-` or `@` (or a tab
or carriage return before one) as a formula: a student id such as `=HYPERLINK(...)` would turn
an instructor's gradebook into a link or worse. As OWASP's CSV-injection guidance says, such a
cell is written with a single quote before it, which spreadsheets show as text. The grader's own
numbers are never negative, so no number is changed.

    writer = spreadsheet.writer(stream)
    writer.writerow(["=1+1", "62.50"])      # writes '=1+1,62.50
"""

import csv
from collections.abc import Iterable
from typing import Protocol, TextIO

from grader.outputs import FORMULA_STARTS


def as_data(cell: object) -> str:
    """Return the text of `cell` as a spreadsheet will show it, never as a formula."""
    text = str(cell)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


class RowWriter(Protocol):
    """What `writer` returns: csv's writer, one row at a time."""

    def writerow(self, row: Iterable[object]) -> object: ...


class _DataWriter:
    """A csv writer that writes every cell as data."""

    def __init__(self, stream: TextIO) -> None:
        self._writer = csv.writer(stream, lineterminator="\n")

    def writerow(self, row: Iterable[object]) -> object:
        return self._writer.writerow([as_data(cell) for cell in row])


def writer(stream: TextIO) -> RowWriter:
    """Return a CSV writer to `stream` (newline "\\n", csv's quoting) whose cells are data."""
    return _DataWriter(stream)
