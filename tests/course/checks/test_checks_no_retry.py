"""Step 6's check passes the reference and catches retries and over-broad catching."""

import pytest
from builders import failure_of, reference, retrying_call_once, unfinished

from course.checks.no_retry import FlakyHandler, check_call_once

pytestmark = []


def returns_text(handler, arguments):
    """A call_once that reports the exception's message instead of the exception."""
    try:
        return True, handler(arguments)
    except Exception as exc:
        return False, str(exc)


def catches_everything(handler, arguments):
    """A call_once that catches BaseException, KeyboardInterrupt included."""
    try:
        return True, handler(arguments)
    except BaseException as exc:
        return False, exc


def test_the_reference_passes():
    report = check_call_once(reference("call_once"))
    assert report.summary() == "All 6 checks of `call_once` passed."
    assert len(report.passed) == 6


def test_a_retry_loop_is_caught_by_the_flaky_handler():
    message = failure_of(check_call_once, retrying_call_once)
    assert "called 3 times" in message
    assert "exactly once" in message


def test_catching_base_exception_is_caught():
    message = failure_of(check_call_once, catches_everything)
    assert "caught KeyboardInterrupt" in message
    assert "Catch `Exception` only" in message


def test_returning_the_message_instead_of_the_exception_is_caught():
    message = failure_of(check_call_once, returns_text)
    assert "the very exception the handler raised" in message


def test_treating_a_falsy_result_as_failure_is_caught():
    def truthiness(handler, arguments):
        try:
            result = handler(arguments)
        except Exception as exc:
            return False, exc
        return bool(result), result

    message = failure_of(check_call_once, truthiness)
    assert "has succeeded" in message


def test_an_unfinished_call_once_says_it_is_not_finished():
    assert failure_of(check_call_once, unfinished).startswith("`call_once` is not finished yet")


def test_the_flaky_handler_fails_once_then_succeeds():
    handler = FlakyHandler()
    with pytest.raises(TimeoutError):
        handler({})
    assert handler({}) == {"sent": True}
    assert handler.calls == 2


# Each wrong call_once, and the one hint among the check's hints meant for it.
NO_RETRY_HINTS = {
    "retry": "it should be called exactly once",
    "text": "Return the exception object itself",
    "base": "Catch `Exception` only",
}


@pytest.mark.parametrize(
    ("call_once", "hint"),
    [(retrying_call_once, "retry"), (returns_text, "text"), (catches_everything, "base")],
    ids=["retries", "returns-text", "catches-base-exception"],
)
def test_each_wrong_call_once_gets_its_own_hint_and_no_other(call_once, hint):
    message = failure_of(check_call_once, call_once)
    assert [name for name, words in NO_RETRY_HINTS.items() if words in message] == [hint]
