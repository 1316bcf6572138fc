"""An instructor's CSV file reads the same for every option: header, stripped cells, real lines."""

import pytest

from grader.gradebook.table import read_table
from grader.model import UsageError

pytestmark = []


def test_a_spreadsheets_file_reads_as_its_rows_with_their_line_numbers(tmp_path):
    path = tmp_path / "students.csv"
    path.write_bytes("\ufeffid , due\nada, 2026-03-01\n\n , \ngrace,\n".encode())
    table = read_table(path, "--roster")
    assert table.header == ("id", "due")
    assert table.rows == ((2, {"id": "ada", "due": "2026-03-01"}), (5, {"id": "grace", "due": ""}))
    assert table.where(5) == f"--roster {path}, line 5"
    assert table.has("id", "due") and not table.has("id", "extra_hours")


def test_a_file_that_is_not_text_is_one_line_naming_its_option(tmp_path):
    path = tmp_path / "times.csv"
    path.write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(
        UsageError, match=r"^--submitted-at .* cannot be read \(UnicodeDecodeError\)$"
    ):
        read_table(path, "--submitted-at")


def test_an_empty_file_has_no_header_and_no_rows(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("", encoding="utf-8")
    table = read_table(path, "--extensions")
    assert (table.header, table.rows) == ((), ())
