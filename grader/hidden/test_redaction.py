"""Redaction (rule 3): nothing of an exception reaches the envelope, and its code survives."""

import pytest

from grader.hidden.probes import MARKER, describe_raise, raises, scenario, strings_in

pytestmark = pytest.mark.category("redaction")

KINDS = (
    "invalid_input",
    "permission_denied",
    "not_found",
    "not_found_mixin",
    "key_error",
    "value_error",
    "permission_error",
    "runtime_error",
    "custom_exception",
    "lookalike",
    "exception_group",
    "chained",
    "with_notes",
    "structured_args",
    "unicode_encode_error",
)


def leaks(observation):
    """Return the strings of the envelope that reveal the exception, if any."""
    names = observation["handler_raised"]
    found = []
    for text in strings_in(observation.envelope):
        if MARKER in text or "Traceback" in text or any(name in text for name in names):
            found.append(text)
    return found


@pytest.mark.parametrize("kind", KINDS)
def test_exception_text_stays_out_of_the_envelope(submission, kind):
    """No exception's message, arguments, notes, type name or traceback appear in the envelope."""
    observation = submission.call(scenario(raises(kind)))
    assert observation.envelope is not None, describe_raise(observation)
    assert not leaks(observation)


@pytest.mark.parametrize(
    ("kind", "code"), [("unprintable", "tool_failed"), ("unprintable_course", "not_found")]
)
def test_unprintable_exception_still_gets_its_code(submission, kind, code):
    """An exception whose str() and repr() themselves raise still yields its code."""
    observation = submission.call(scenario(raises(kind)))
    assert observation.envelope is not None, describe_raise(observation)
    assert observation.field("error") == code
