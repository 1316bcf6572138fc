"""Hand-in times come only from sources the student cannot set: the instructor's file, collect.

A student's own timestamp.txt, in their folder or nested in a tree they made, and file times
set back never give a time; nbgrader's collected tree does, and so does --submitted-at.
"""

import os
from datetime import UTC, datetime, timedelta

import pytest

from grader.gradebook.times import (
    GIVEN,
    RECEIPT,
    TIMESTAMP_FILE,
    hand_in_time,
    is_receipt_place,
    read_submitted_at,
    receipt_text,
)
from grader.intake.discover import discover
from grader.model import UsageError

pytestmark = []

DUE = datetime(2026, 3, 1, 23, 59, tzinfo=UTC)
EARLY = "2020-01-01 00:00:00.000000 UTC"


def lessons(folder, stamp=None, back_to=None):
    """Make a lessons folder with one notebook, a timestamp.txt if `stamp`, times set back."""
    folder.mkdir(parents=True)
    (folder / "01-the-envelope.ipynb").write_text("{}", encoding="utf-8")
    if stamp is not None:
        (folder / TIMESTAMP_FILE).write_text(stamp, encoding="utf-8")
    if back_to is not None:
        for path in folder.iterdir():
            os.utime(path, (back_to.timestamp(), back_to.timestamp()))
    return folder


def time_of(found, given=None):
    return hand_in_time(found.student, found.path, found.start, given or {})


def test_collects_receipt_in_the_submitted_tree_is_the_time(tmp_path):
    lessons(tmp_path / "submitted" / "ada" / "bounded_results", "2026-03-02 01:00:00.5 UTC\n")
    for named in (tmp_path / "submitted", tmp_path, tmp_path / "submitted" / "ada"):
        [found] = discover([named])
        when = time_of(found)
        assert when.source == RECEIPT, named
        assert when.time == DUE + timedelta(minutes=61, seconds=0.5)


def test_a_students_own_timestamp_and_old_file_times_give_no_time(tmp_path):
    lessons(tmp_path / "class" / "ada", EARLY, back_to=DUE - timedelta(days=30))
    lessons(tmp_path / "class" / "alan", back_to=DUE - timedelta(days=30))
    for found in discover([tmp_path / "class"]):
        when = time_of(found)
        assert (when.time, when.source, when.problem) == (None, "", ""), found.student


def test_a_receipt_nested_in_a_students_own_folder_is_not_collects(tmp_path):
    """The student handed in submitted/<them>/bounded_results/ inside their own folder."""
    class_folder = tmp_path / "class"
    lessons(class_folder / "ada" / "submitted" / "ada" / "bounded_results", EARLY)
    [found] = discover([class_folder])
    assert found.student == "ada" and not is_receipt_place(found.path, found.start)
    assert time_of(found).time is None


def test_the_instructors_time_wins_over_every_file(tmp_path):
    lessons(tmp_path / "submitted" / "ada" / "bounded_results", EARLY)
    [found] = discover([tmp_path / "submitted"])
    late = DUE + timedelta(hours=5)
    when = time_of(found, {"ada": late})
    assert (when.time, when.source) == (late, GIVEN)


def test_a_receipt_that_is_a_link_or_no_time_is_not_used_and_says_why(tmp_path):
    (tmp_path / "early.txt").write_text(EARLY, encoding="utf-8")
    folder = lessons(tmp_path / "submitted" / "ada" / "bounded_results")
    (folder / TIMESTAMP_FILE).symlink_to(tmp_path / "early.txt")
    lessons(tmp_path / "submitted" / "bob" / "bounded_results", "last Tuesday")
    ada, bob = discover([tmp_path / "submitted"])
    assert time_of(ada).time is None and "is a link, not a file" in time_of(ada).problem
    assert time_of(bob).time is None and "could not be read" in time_of(bob).problem


def test_submitted_at_reads_ids_and_times_and_skips_empty_cells(tmp_path):
    path = tmp_path / "times.csv"
    path.write_text(
        "\ufeffid,name,submitted_at\nada,Ada,2026-03-02T01:00Z\nbob,Bob,\n", encoding="utf-8"
    )
    assert read_submitted_at(path) == {"ada": DUE + timedelta(minutes=61)}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("id,when\nada,2026-03-02T01:00Z\n", "needs the columns 'id' and 'submitted_at'"),
        ("id,submitted_at\nada,yesterday\n", "line 2: 'yesterday' is not a date and time"),
    ],
)
def test_a_bad_submitted_at_file_is_one_usage_error(tmp_path, text, message):
    path = tmp_path / "times.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError, match=message):
        read_submitted_at(path)


def test_a_receipt_is_written_as_nbgrader_writes_and_read_back_the_same(tmp_path):
    moment = DUE + timedelta(seconds=1.25)
    lessons(tmp_path / "submitted" / "ada" / "bounded_results", receipt_text(moment))
    [found] = discover([tmp_path / "submitted"])
    assert time_of(found).time == moment
