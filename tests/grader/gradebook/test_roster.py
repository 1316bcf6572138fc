"""The roster is nbgrader's student list: a header with `id`, one login per row."""

import pytest

from grader.gradebook.roster import read_roster
from grader.model import UsageError

pytestmark = []


def roster(tmp_path, text, encoding="utf-8"):
    path = tmp_path / "students.csv"
    path.write_text(text, encoding=encoding)
    return path


def test_the_ids_are_read_in_order_and_nbgraders_other_columns_ignored(tmp_path):
    text = "first_name,id,email\nAda,ada,a@x\n,alan,\n\nGrace, grace ,\n"
    assert read_roster(roster(tmp_path, text)) == ("ada", "alan", "grace")


def test_a_spreadsheets_byte_order_mark_is_no_part_of_the_header(tmp_path):
    assert read_roster(roster(tmp_path, "id\nada\n", encoding="utf-8-sig")) == ("ada",)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("login\nada\n", "no column named 'id'"),
        ("", "no column named 'id'"),
        ("id,name\n,Ada\n", "line 2: the id is empty"),
        ("id\nada\nalan\nada\n", "line 4: 'ada' is already on line 2"),
        ("id\ngrades.csv\n", "line 2: its student id 'grades.csv' is the name of a file"),
        ("id\n../ada\n", "line 2: its student id '../ada' holds a path separator"),
    ],
)
def test_a_roster_that_cannot_be_used_is_one_line_saying_what_to_fix(tmp_path, text, message):
    with pytest.raises(UsageError, match=message) as caught:
        read_roster(roster(tmp_path, text))
    assert "\n" not in str(caught.value)


def test_a_missing_or_binary_roster_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="cannot be read"):
        read_roster(tmp_path / "nowhere.csv")
    path = tmp_path / "students.csv"
    path.write_bytes(b"\xff\xfe\x00id")
    with pytest.raises(UsageError, match="cannot be read"):
        read_roster(path)
