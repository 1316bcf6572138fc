"""Step 2's check passes the reference and names what is wrong with realistic mistakes."""

from builders import failure_of, reference

from course.checks.error_codes import LEAK_HINT, check_failure_code
from course.supplied import InvalidInputError, NotFoundError, PermissionDeniedError

pytestmark = []

CODES = {
    "InvalidInputError": "invalid_input",
    "PermissionDeniedError": "permission_denied",
    "NotFoundError": "not_found",
}


def test_the_reference_passes_every_case():
    assert (
        check_failure_code(reference("failure_code")).summary()
        == "All 6 checks of `failure_code` passed."
    )


def test_a_table_walked_with_isinstance_and_logging_is_accepted():
    import logging

    table = ((NotFoundError, "not_found"), (InvalidInputError, "invalid_input"))
    table += ((PermissionDeniedError, "permission_denied"),)

    def failure_code(exc):
        logging.getLogger("test.private").debug("handler failed", exc_info=exc)
        return next((code for cls, code in table if isinstance(exc, cls)), "tool_failed")

    assert check_failure_code(failure_code).summary() == "All 6 checks of `failure_code` passed."


def test_a_lookup_by_exact_type_name_misses_subclasses():
    message = failure_of(
        check_failure_code, lambda exc: CODES.get(type(exc).__name__, "tool_failed")
    )
    assert message.startswith("Subclasses and mixins of a course exception keep its code")
    assert "failure_code(MissingCityError('PRIVATE-7f3a')) returned 'tool_failed'" in message


def test_mapping_builtin_look_alikes_to_codes_is_caught():
    def failure_code(exc):
        if isinstance(exc, (InvalidInputError, ValueError)):
            return "invalid_input"
        if isinstance(exc, (PermissionDeniedError, PermissionError)):
            return "permission_denied"
        if isinstance(exc, (NotFoundError, KeyError, LookupError)):
            return "not_found"
        return "tool_failed"

    message = failure_of(check_failure_code, failure_code)
    assert message.startswith("Built-in KeyError, ValueError and PermissionError are tool_failed")
    assert "expected 'tool_failed'" in message


def test_returning_the_message_is_caught_as_a_leak():
    message = failure_of(check_failure_code, lambda exc: str(exc))
    assert "returned 'PRIVATE-7f3a'" in message
    assert "private text" in message


def test_reading_the_text_even_just_to_keep_it_is_caught_when_str_raises():
    honest = reference("failure_code")

    def failure_code(exc):
        details = f"{type(exc).__name__}: {exc}"  # kept "for debugging"
        del details
        return honest(exc)

    message = failure_of(check_failure_code, failure_code)
    assert message.startswith("An exception whose str() and repr() raise still gets its code")
    assert "called str() or repr() on the exception" in message


def test_an_unfinished_exercise_gets_the_not_finished_message():
    def failure_code(exc):
        raise NotImplementedError()

    assert "`failure_code` is not finished yet" in failure_of(check_failure_code, failure_code)


def test_a_wrong_code_that_holds_no_text_gets_no_leak_hint():
    message = failure_of(check_failure_code, lambda exc: "tool_failed")
    assert "returned 'tool_failed'; expected 'invalid_input'" in message
    assert LEAK_HINT not in message


def test_only_a_code_carrying_the_private_text_gets_the_leak_hint():
    message = failure_of(check_failure_code, lambda exc: f"tool_failed: {exc}")
    assert LEAK_HINT in message
