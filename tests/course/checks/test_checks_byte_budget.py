"""Step 4's check passes the reference and names what is wrong with realistic mistakes."""

from pathlib import Path

import pytest

from course.assemble import load_course, notebook_exercise_cells, run_cells
from course.checks.byte_budget import check_budget_error
from course.feedback import CheckFailed

NOTEBOOK = Path(__file__).resolve().parents[3] / "solutions/bounded_results/04-byte-budget.ipynb"


def reference_budget_error():
    """Return `budget_error` as the solution notebook's exercise cell defines it."""
    namespace = {}
    assert run_cells(notebook_exercise_cells(NOTEBOOK, load_course()).cells, namespace) == ()
    return namespace["budget_error"]


def failure_of(budget_error):
    with pytest.raises(CheckFailed) as caught:
        check_budget_error(budget_error, out=lambda line: None)
    return str(caught.value)


def test_the_reference_passes_every_case():
    lines = []
    check_budget_error(reference_budget_error(), out=lines.append)
    assert lines[-1] == "All 6 checks of `budget_error` passed."


def test_a_version_with_errors_strict_and_a_conditional_expression_is_accepted():
    def budget_error(text, max_result_bytes):
        try:
            data = text.encode("utf-8", errors="strict")
        except UnicodeError:
            return "invalid_result"
        return "result_too_large" if len(data) > max_result_bytes else None

    lines = []
    check_budget_error(budget_error, out=lines.append)
    assert lines[-1] == "All 6 checks of `budget_error` passed."


def test_counting_characters_is_caught_with_a_hint():
    def budget_error(text, max_result_bytes):
        return "result_too_large" if len(text) > max_result_bytes else None

    message = failure_of(budget_error)
    assert message.startswith("The budget counts UTF-8 bytes, not characters")
    assert "4 characters and 8 UTF-8 bytes" in message
    assert "count the bytes of text.encode('utf-8')" in message


def test_an_off_by_one_boundary_is_caught_with_a_hint():
    def budget_error(text, max_result_bytes):
        return "result_too_large" if len(text.encode("utf-8")) >= max_result_bytes else None

    message = failure_of(budget_error)
    assert message.startswith("A size equal to the budget fits")
    assert "A size equal to the budget fits: only more bytes" in message


def test_ignoring_lone_surrogates_is_caught():
    def budget_error(text, max_result_bytes):
        size = len(text.encode("utf-8", errors="replace"))
        return "result_too_large" if size > max_result_bytes else None

    message = failure_of(budget_error)
    assert message.startswith("Text that UTF-8 cannot encode is invalid_result")
    assert "lone surrogate" in message


def test_an_unfinished_exercise_gets_the_not_finished_message():
    def budget_error(text, max_result_bytes):
        raise NotImplementedError()

    assert "`budget_error` is not finished yet" in failure_of(budget_error)
