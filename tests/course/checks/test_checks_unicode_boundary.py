"""Step 4's check passes the reference and names what is wrong with realistic mistakes."""

import pytest
from builders import failure_of, reference

from course.checks.unicode_boundary import EQUAL_FITS_HINT, MEASURE_HINTS, check_budget_error

pytestmark = []

CHARACTERS_HINT = MEASURE_HINTS["characters"]
UTF16_HINT = MEASURE_HINTS["utf-16"]


def test_the_reference_passes_every_case():
    assert (
        check_budget_error(reference("budget_error")).summary()
        == "All 6 checks of `budget_error` passed."
    )


def test_a_version_with_errors_strict_and_a_conditional_expression_is_accepted():
    def budget_error(text, max_result_bytes):
        try:
            data = text.encode("utf-8", errors="strict")
        except UnicodeError:
            return "invalid_result"
        return "result_too_large" if len(data) > max_result_bytes else None

    assert check_budget_error(budget_error).summary() == "All 6 checks of `budget_error` passed."


def measured_by(measure, *, strict=True):
    """A budget_error that measures text with `measure`, compared with > (or >= if not strict)."""

    def budget_error(text, max_result_bytes):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return "invalid_result"
        size = measure(text)
        too_large = size > max_result_bytes if strict else size >= max_result_bytes
        return "result_too_large" if too_large else None

    return budget_error


def utf8(text):
    return len(text.encode("utf-8"))


# Each wrong answer, and the one hint meant for it: no other hint may show.
WRONG_MEASURES = {
    "characters": (measured_by(len), CHARACTERS_HINT),
    "UTF-16 code units as bytes": (
        measured_by(lambda text: len(text.encode("utf-16-le"))),
        UTF16_HINT,
    ),
    "UTF-16 with its byte-order mark": (
        measured_by(lambda text: len(text.encode("utf-16"))),
        UTF16_HINT,
    ),
    "UTF-8 bytes with >=": (measured_by(utf8, strict=False), EQUAL_FITS_HINT),
}
HINTS = (CHARACTERS_HINT, UTF16_HINT, EQUAL_FITS_HINT)


@pytest.mark.parametrize("wrong", WRONG_MEASURES, ids=list(WRONG_MEASURES))
def test_each_wrong_measure_gets_its_own_hint_and_no_other(wrong):
    budget_error, hint = WRONG_MEASURES[wrong]
    message = failure_of(check_budget_error, budget_error)
    assert hint in message
    assert [other for other in HINTS if other in message] == [hint]


def test_counting_characters_is_named_where_characters_and_bytes_differ():
    message = failure_of(check_budget_error, measured_by(len))
    assert message.startswith("The budget counts UTF-8 bytes, not characters")
    assert "4 characters and 8 UTF-8 bytes" in message


def test_utf16_counting_is_not_told_it_is_off_by_one():
    # The case: a UTF-16 count used to get the "a size equal to the budget fits" hint.
    message = failure_of(
        check_budget_error, measured_by(lambda text: len(text.encode("utf-16-le")))
    )
    assert EQUAL_FITS_HINT not in message
    assert "measured in UTF-16" in message


def test_characters_with_an_off_by_one_get_both_hints():
    message = failure_of(check_budget_error, measured_by(len, strict=False))
    assert CHARACTERS_HINT in message or EQUAL_FITS_HINT in message
    assert UTF16_HINT not in message


def test_a_wrong_verdict_no_measure_explains_gets_no_hint():
    def budget_error(text, max_result_bytes):
        return "result_too_large" if text == '"ok"' else None  # refuses one text, whatever size

    message = failure_of(check_budget_error, budget_error)
    assert [hint for hint in HINTS if hint in message] == []


def test_a_budget_error_that_lets_unicode_encode_error_out_is_told_to_catch_it():
    def budget_error(text, max_result_bytes):
        return "result_too_large" if len(text.encode("utf-8")) > max_result_bytes else None

    message = failure_of(check_budget_error, budget_error)
    assert message.startswith("Text that UTF-8 cannot encode is invalid_result")
    assert 'Catch UnicodeEncodeError and return "invalid_result"' in message


def test_ignoring_lone_surrogates_is_caught():
    def budget_error(text, max_result_bytes):
        size = len(text.encode("utf-8", errors="replace"))
        return "result_too_large" if size > max_result_bytes else None

    message = failure_of(check_budget_error, budget_error)
    assert message.startswith("Text that UTF-8 cannot encode is invalid_result")
    assert "lone surrogate" in message


def test_an_unfinished_exercise_gets_the_not_finished_message():
    def budget_error(text, max_result_bytes):
        raise NotImplementedError()

    assert "`budget_error` is not finished yet" in failure_of(check_budget_error, budget_error)
