"""The class book keeps its summaries on disk: every field comes back, in student order."""

import tracemalloc
from dataclasses import replace

from grader.gradebook.book import ClassBook
from grader.model import CATEGORIES, Grade
from grader.reports.store import SummaryStore, in_student_order
from grader.reports.summary import NO_VERDICT, StudentSummary
from tests.grader.grade_builders import CLASS, grade_for, summary_for

pytestmark = []

# What a real catalogue of hidden tests gives each student: one verdict byte per test case.
VERDICTS_PER_STUDENT = 520


def odd_summary(student: str) -> StudentSummary:
    """Return a summary whose every field is unusual: it must come back exactly as it was."""
    return replace(
        summary_for(student, ["passed", "failed", "timeout"]),
        score=12.345678901234567,
        points=(0.1, 0.2, 10.0, 0.0, 1 / 3, 9.99, 2.5),
        verdicts=bytes([0, 1, 2, NO_VERDICT]),
        seconds=1e-7,
        late_penalty=3.25,
        seconds_late=90061.5,
        submitted="2026-12-04T05:00:00+01:00",
        has_feedback=False,
    )


def test_every_field_of_a_summary_comes_back_unchanged():
    store = SummaryStore()
    strange_ids = ["ada", 'quote"and\\slash', "line\nbreak", "élève-名前", "tab\there"]
    for student in strange_ids:
        store.put(odd_summary(student))
    for student in strange_ids:
        assert store.get(student) == odd_summary(student)
    assert store.get("nobody") is None


def test_the_store_is_a_sequence_sorted_by_student_whatever_the_order_of_puts():
    store = SummaryStore()
    for summary in reversed(CLASS):
        store.put(summary)
    assert list(store) == sorted(CLASS, key=lambda s: s.student)
    assert len(store) == len(CLASS)
    assert store[0].student == "ada" and store[-1].student == "zed"
    assert [s.student for s in store[1:3]] == ["grace", "linus"]
    assert store.students() == ["ada", "grace", "linus", "zed"]


def test_a_later_summary_of_the_same_student_replaces_the_earlier_one():
    store = SummaryStore()
    store.put(summary_for("ada", ["failed"] * 4))
    store.put(summary_for("bob", ["passed"] * 4))
    store.put(summary_for("ada", ["passed"] * 4))
    assert len(store) == 2
    assert store.get("ada") == summary_for("ada", ["passed"] * 4)
    assert [s.student for s in store] == ["ada", "bob"]


def test_each_read_builds_a_fresh_summary_so_nobody_holds_the_class_by_accident():
    store = SummaryStore()
    store.put(CLASS[0])
    assert store[0] == store[0]
    assert store[0] is not store[0]


def test_a_store_is_read_in_its_own_order_and_anything_else_is_sorted():
    store = SummaryStore()
    for summary in CLASS:
        store.put(summary)
    assert in_student_order(store) is store
    shuffled = [CLASS[2], CLASS[0], CLASS[3], CLASS[1]]
    assert list(in_student_order(shuffled)) == CLASS


def test_what_the_book_holds_in_memory_per_student_is_a_small_fraction_of_a_summary():
    """A summary of a real run (520 verdict bytes, seven points) takes almost a kilobyte in
    memory; the book keeps only where it starts in its file."""
    book = ClassBook()
    catalogue = [
        type("Test", (), {"test_id": f"t{i}", "category": CATEGORIES[i % 7]})()
        for i in range(VERDICTS_PER_STUDENT)
    ]
    book.use_catalogue(catalogue)  # type: ignore[arg-type]
    grade = grade_for("s", ["passed"] * 4)
    students = 2000
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for number in range(students):
            book.add(renamed(grade, f"student-{number:05d}"))
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(book.summaries()) == students
    assert book.summaries()[-1].student == f"student-{students - 1:05d}"
    # A student id, an offset and a dict slot: about 120 bytes a student here (the summaries
    # themselves, held in a dict, took about 860).
    assert held / students < 300, f"{held / students:.0f} bytes held per student"


def renamed(grade: Grade, student: str) -> Grade:
    """Return `grade` as the grade of `student`."""
    submission = replace(grade.run.submission, student=student)
    return replace(grade, run=replace(grade.run, submission=submission))
