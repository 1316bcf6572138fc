"""Every CSV cell the grader writes is data: a cell that would start a formula is shown as text."""

import io

import pytest

from grader.reports import spreadsheet

pytestmark = []


@pytest.mark.parametrize("cell", ["=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1"])
def test_a_cell_that_would_start_a_formula_gets_a_quote_before_it(cell):
    assert spreadsheet.as_data(cell) == "'" + cell


@pytest.mark.parametrize("cell", ["ada", "62.50", "0", "", "a=b", "'quoted"])
def test_any_other_cell_is_written_as_it_is(cell):
    assert spreadsheet.as_data(cell) == cell


def test_the_writer_neutralises_every_cell_and_keeps_csvs_quoting():
    stream = io.StringIO()
    spreadsheet.writer(stream).writerow(['=HYPERLINK("x","y")', 70.0, "a,b"])
    assert stream.getvalue() == '"\'=HYPERLINK(""x"",""y"")",70.0,"a,b"\n'
