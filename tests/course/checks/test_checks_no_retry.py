"""Step 6's check passes the reference and catches retries and over-broad catching."""

import pytest
from builders import failure_of, reference

from course.checks.no_retry import FlakyHandler, check_call_once


def test_the_reference_passes():
    report = check_call_once(reference("call_once"))
    assert report.summary() == "All 6 checks of `call_once` passed."
    assert len(report.passed) == 6


def test_a_retry_loop_is_caught_by_the_flaky_handler():
    def retrying(handler, arguments):
        error = None
        for _attempt in range(3):
            try:
                return True, handler(arguments)
            except Exception as exc:
                error = exc
        return False, error

    message = failure_of(check_call_once, retrying)
    assert "called 3 times" in message
    assert "exactly once" in message


def test_catching_base_exception_is_caught():
    def too_broad(handler, arguments):
        try:
            return True, handler(arguments)
        except BaseException as exc:
            return False, exc

    message = failure_of(check_call_once, too_broad)
    assert "caught KeyboardInterrupt" in message
    assert "Catch `Exception` only" in message


def test_returning_the_message_instead_of_the_exception_is_caught():
    def as_text(handler, arguments):
        try:
            return True, handler(arguments)
        except Exception as exc:
            return False, str(exc)

    message = failure_of(check_call_once, as_text)
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
    def unfinished(handler, arguments):
        raise NotImplementedError()

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


def retries(handler, arguments):
    for _attempt in range(2):
        try:
            return True, handler(arguments)
        except Exception as exc:
            failure = exc
    return False, failure


def returns_text(handler, arguments):
    try:
        return True, handler(arguments)
    except Exception as exc:
        return False, str(exc)


def catches_everything(handler, arguments):
    try:
        return True, handler(arguments)
    except BaseException as exc:
        return False, exc


@pytest.mark.parametrize(
    ("call_once", "hint"),
    [(retries, "retry"), (returns_text, "text"), (catches_everything, "base")],
    ids=["retries", "returns-text", "catches-base-exception"],
)
def test_each_wrong_call_once_gets_its_own_hint_and_no_other(call_once, hint):
    message = failure_of(check_call_once, call_once)
    assert [name for name, words in NO_RETRY_HINTS.items() if words in message] == [hint]
