"""The instructor's CSV files (a roster, hand-in times, extensions), read one way.

    table = read_table(Path("students.csv"), "--roster")
    for line, cells in table.rows:    # cells by column name, each stripped
        ...

Each file has a header row naming its columns; a spreadsheet may have saved it with a byte
order mark and blank lines at the end, which are dropped. What a file cannot be read for is one
line naming the option that gave it.
"""

import csv
from dataclasses import dataclass
from pathlib import Path

from grader.model import UsageError


@dataclass(frozen=True)
class Table:
    """A CSV file's header and its non-blank rows, each with the line it is on."""

    option: str  # the command-line option that named the file, for messages
    path: Path
    header: tuple[str, ...]
    rows: tuple[tuple[int, dict[str, str]], ...]

    def where(self, line: int) -> str:
        """Say where a row is, as a message about it begins."""
        return f"{self.option} {self.path}, line {line}"

    def has(self, *columns: str) -> bool:
        """Say whether the header names every one of `columns`."""
        return all(column in self.header for column in columns)


def read_table(path: Path, option: str) -> Table:
    """Return the table at `path`; raise UsageError for a file that cannot be read as CSV."""
    try:
        # utf-8-sig: a file saved by a spreadsheet often starts with a byte order mark.
        with path.open(encoding="utf-8-sig", newline="") as stream:
            lines = list(csv.reader(stream))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise UsageError(f"{option} {path} cannot be read ({type(error).__name__})") from None
    header = tuple(name.strip() for name in lines[0]) if lines else ()
    rows = []
    for line, row in enumerate(lines[1:], start=2):
        cells = [cell.strip() for cell in row]
        if any(cells):  # a blank line, as spreadsheets leave at the end, is no row
            rows.append((line, dict(zip(header, cells, strict=False))))
    return Table(option, path, header, tuple(rows))
