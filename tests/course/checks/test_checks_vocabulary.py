"""Step 3's check passes the reference and names what is wrong with realistic mistakes."""

import json

from builders import failure_of, reference

from course.checks.vocabulary import ASCII_HINT, BYTES_HINT, check_encode_json
from course.supplied import check_json_value

pytestmark = []


def test_the_reference_passes_every_case():
    assert (
        check_encode_json(reference("encode_json")).summary()
        == "All 9 checks of `encode_json` passed."
    )


def test_a_version_that_encodes_first_and_checks_after_is_accepted():
    def encode_json(value):
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        check_json_value(value)
        return text

    assert check_encode_json(encode_json).summary() == "All 9 checks of `encode_json` passed."


def test_plain_json_dumps_is_caught_letting_tuples_through():
    message = failure_of(
        check_encode_json, lambda value: json.dumps(value, ensure_ascii=False, allow_nan=False)
    )
    assert message.startswith("Tuples, sets, bytes and other objects are refused")
    assert "encode_json((1, 2)) returned '[1, 2]'" in message


def test_escaped_non_ascii_is_caught_with_a_hint():
    def encode_json(value):
        check_json_value(value)
        return json.dumps(value, allow_nan=False)

    message = failure_of(check_encode_json, encode_json)
    assert "\\u00e9" in message  # the é of "José", escaped
    assert "Non-ASCII characters came out as \\u escapes: pass ensure_ascii=False." in message


def test_letting_nan_through_is_caught():
    def encode_json(value):
        if isinstance(value, float):
            return json.dumps(value)
        check_json_value(value)
        return json.dumps(value, ensure_ascii=False, allow_nan=False)

    message = failure_of(check_encode_json, encode_json)
    assert message.startswith("NaN and infinities are refused")
    assert "returned 'NaN'" in message


def test_compact_separators_are_caught():
    def encode_json(value):
        check_json_value(value)
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))

    message = failure_of(check_encode_json, encode_json)
    assert message.startswith("Vocabulary values become the exact JSON text")
    assert 'expected \'{"name": "José"' in message


def test_an_unfinished_exercise_gets_the_not_finished_message():
    def encode_json(value):
        raise NotImplementedError()

    assert "`encode_json` is not finished yet" in failure_of(check_encode_json, encode_json)


def test_returning_bytes_gets_the_text_hint_and_not_the_ascii_one():
    def encode_json(value):
        check_json_value(value)
        return json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")

    message = failure_of(check_encode_json, encode_json)
    assert BYTES_HINT in message
    assert ASCII_HINT not in message


def test_escaped_text_gets_the_ascii_hint_and_not_the_bytes_one():
    def encode_json(value):
        check_json_value(value)
        return json.dumps(value, allow_nan=False)

    message = failure_of(check_encode_json, encode_json)
    assert ASCII_HINT in message
    assert BYTES_HINT not in message


def test_a_wrong_text_neither_hint_explains_gets_neither():
    def encode_json(value):
        check_json_value(value)
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))

    message = failure_of(check_encode_json, encode_json)
    assert ASCII_HINT not in message
    assert BYTES_HINT not in message


def test_an_encode_json_that_swallows_recursion_error_is_caught():
    def encode_json(value):
        try:
            check_json_value(value)
            return json.dumps(value, ensure_ascii=False, allow_nan=False)
        except RecursionError:
            return "[]"  # "too deep to check, so call it empty"

    message = failure_of(check_encode_json, encode_json)
    assert message.startswith("A value nested too deep for JSON is refused, never written")
    assert "let the RecursionError through" in message
