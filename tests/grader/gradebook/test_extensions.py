"""Extensions: a student's own due time, read whole from --extensions or the roster, or refused.

The class of tests/extended_class.py goes through the gradebook directly (no grading runs):
its hand-in times are the instructor's, the work the same for all four.
"""

import math
from datetime import timedelta

import pytest
from extended_class import (
    DUE_TIME,
    EXTENDED_DUE,
    EXTENSIONS_CSV,
    HANDED_IN,
    HOURS_CHARGED,
    PENALTY,
    PENALTY_PER_HOUR,
)
from grade_builders import grade_for

from grader.gradebook.book import ClassBook, GradebookSettings
from grader.gradebook.extensions import (
    Extension,
    check_extensions,
    check_known,
    combine,
    read_extensions,
    roster_extensions,
)
from grader.gradebook.late import LatePolicy
from grader.gradebook.lms import moodle_csv, rows_from_summaries
from grader.intake.discover import Found
from grader.model import UsageError
from grader.reports.summary import one_line_comment

pytestmark = []


def csv_file(tmp_path, text, name="extensions.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def book(tmp_path):
    """The class's book, each student graded with every hidden test passed."""
    settings = GradebookSettings(
        policy=LatePolicy(DUE_TIME, "per-hour", PENALTY_PER_HOUR),
        comments=True,
        submitted_at=HANDED_IN,
        extensions=read_extensions(csv_file(tmp_path, EXTENSIONS_CSV)),
    )
    book = ClassBook(settings)
    for student in HANDED_IN:
        book.add(grade_for(student, ["passed"] * 4))
    return book


def test_a_due_time_or_extra_hours_each_give_the_student_their_own_due_time(tmp_path):
    given = read_extensions(csv_file(tmp_path, EXTENSIONS_CSV))
    assert sorted(given) == ["extended", "extended-late"]
    assert given["extended"].due_after(DUE_TIME) == DUE_TIME + timedelta(hours=12)
    assert given["extended-late"].due_after(DUE_TIME) == DUE_TIME + timedelta(hours=24)
    assert given["extended-late"].where.endswith("extensions.csv, line 3")


def test_lateness_and_penalty_count_from_each_students_own_due_time(book):
    for student, hours in HOURS_CHARGED.items():
        summary = book.summary(student)
        assert math.ceil(summary.seconds_late / 3600) == hours, student
        assert summary.late_penalty == PENALTY[student], student
        assert summary.final_score == summary.score - PENALTY[student], student
        assert summary.extended_due == EXTENDED_DUE[student], student
    assert book.summary("extended").seconds_late == 0
    assert book.summary("extended-late").seconds_late == 91 * 60


def test_grades_csv_gets_the_extended_due_column_only_with_extensions(book):
    columns = book.grades_columns()
    assert "extended_due" in columns
    at = columns.index("extended_due")
    assert book.grades_cells("extended")[at] == EXTENDED_DUE["extended"]
    assert book.grades_cells("on-time")[at] == ""
    plain = ClassBook(GradebookSettings(policy=LatePolicy(DUE_TIME)))
    assert "extended_due" not in plain.grades_columns()


def test_the_summary_feedback_and_moodle_comment_name_who_had_an_extension(book):
    assert (
        "Extensions: 2 students, lateness counted from their own due time (grades.csv, "
        "extended_due): extended, extended-late."
    ) in book.notes()
    assert book.feedback_notes("on-time") == book.feedback_notes("late") == []
    [note] = book.feedback_notes("extended-late")
    assert "extension" in note and "2026-03-02 23:59+00:00" in note
    comment = one_line_comment(book.summary("extended-late"))
    assert "Extension: due 2026-03-02T23:59:00+00:00." in comment
    assert "Late by 91 min: 4.00 off" in comment
    assert "Extension" not in one_line_comment(book.summary("late"))
    moodle = moodle_csv(rows_from_summaries(book.summaries()), "bounded_results", comments=True)
    [extended_row] = [line for line in moodle.splitlines() if line.startswith("extended,")]
    assert "Extension: due 2026-03-02T11:59:00+00:00." in extended_row


def test_the_rosters_column_gives_extensions_and_a_roster_without_one_gives_none(tmp_path):
    roster = csv_file(tmp_path, "id,extra_hours\nada,\ngrace,1.5\n", "students.csv")
    assert roster_extensions(roster) == {
        "grace": Extension(f"--roster {roster}, line 3", extra_hours=1.5)
    }
    assert roster_extensions(csv_file(tmp_path, "id\nada\n", "plain.csv")) == {}


def test_an_extension_in_both_the_roster_and_the_file_is_refused_not_chosen(tmp_path):
    roster = roster_extensions(csv_file(tmp_path, "id,extra_hours\ngrace,2\n", "students.csv"))
    given = read_extensions(csv_file(tmp_path, "student_id,extra_hours\ngrace,3\n"))
    with pytest.raises(UsageError, match="'grace' already has an extension in --roster"):
        combine(roster, given)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("student,due\nada,2026-03-02\n", "needs the column 'student_id' and the column 'due'"),
        ("student_id\nada\n", "needs the column 'student_id' and the column 'due'"),
        ("student_id,due\nada,tomorrow\n", "line 2: 'tomorrow' is not a date and time"),
        ("student_id,extra_hours\nada,1\ngrace,-2\n", "line 3: extra_hours -2 is negative"),
        ("student_id,extra_hours\nada,lots\n", "line 2: extra_hours 'lots' is not a number"),
        ("student_id,extra_hours\nada,nan\n", "line 2: extra_hours 'nan' is not a number"),
        ("student_id,due,extra_hours\nada,2026-03-02,1\n", "line 2: give due or extra_hours"),
        ("student_id,extra_hours\nada,\n", "line 2: 'ada' has neither due nor extra_hours"),
        ("student_id,extra_hours\n,1\n", "line 2: the student_id is empty"),
        ("student_id,extra_hours\nada,1\nada,2\n", "line 3: 'ada' already has an extension"),
    ],
)
def test_a_bad_row_is_one_line_naming_the_file_and_line(tmp_path, text, message):
    path = csv_file(tmp_path, text)
    with pytest.raises(UsageError, match=message) as raised:
        read_extensions(path)
    assert str(raised.value).startswith(f"--extensions {path}")
    assert "\n" not in str(raised.value)


def test_a_due_before_the_class_due_is_a_negative_extension(tmp_path):
    given = read_extensions(csv_file(tmp_path, "student_id,due\nada,2026-03-01T20:00Z\n"))
    with pytest.raises(UsageError, match=r"line 2: 'ada' would be due .* cannot be negative"):
        check_extensions(given, DUE_TIME)
    with pytest.raises(UsageError, match="line 2: an extension needs --due"):
        check_extensions(given, None)
    check_extensions({}, None)  # no extension needs no due time


def test_an_id_neither_rostered_nor_submitting_is_refused_before_grading(tmp_path):
    given = read_extensions(csv_file(tmp_path, "student_id,extra_hours\nada,1\ngarce,2\n"))
    with pytest.raises(UsageError, match="line 3: 'garce' is neither on the roster nor"):
        check_known(given, {"ada", "grace"})
    settings = GradebookSettings(policy=LatePolicy(DUE_TIME), roster=("garce",), extensions=given)
    submitting = [Found("ada", str(tmp_path / "ada.py"), "python")]
    ClassBook(settings).require_known_extensions(submitting)  # garce is rostered: known
    with pytest.raises(UsageError, match="'garce'"):
        ClassBook(GradebookSettings(extensions=given)).require_known_extensions(submitting)
