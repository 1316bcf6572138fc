"""Step 5's checks pass the reference and name what is wrong with realistic mistakes."""

import ast
import copy
import json

import pytest
from builders import failure_of, unfinished

from course.checks.ownership import check_copy_arguments, check_fresh_value, exact_type_problem

pytestmark = []


def test_the_reference_passes_both_checks(reference_steps):
    copies = check_copy_arguments(reference_steps["copy_arguments"])
    assert copies.summary() == "All 5 checks of `copy_arguments` passed."
    assert check_fresh_value(reference_steps["fresh_value"]).summary() == (
        "All 5 checks of `fresh_value` passed."
    )


def test_a_json_round_trip_is_accepted_as_a_deep_copy():
    assert (
        check_copy_arguments(lambda arguments: json.loads(json.dumps(arguments))).summary()
        == "All 5 checks of `copy_arguments` passed."
    )


def test_returning_the_arguments_themselves_is_caught():
    message = failure_of(check_copy_arguments, lambda arguments: arguments)
    assert "the very same dict" in message


@pytest.mark.parametrize("shallow", [dict, copy.copy, lambda arguments: {**arguments}])
def test_a_shallow_copy_is_caught_with_a_hint_to_copy_every_level(shallow):
    message = failure_of(check_copy_arguments, shallow)
    assert "inner ones are shared" in message
    assert "deepcopy" in message


def test_an_unfinished_copy_arguments_says_it_is_not_finished():
    message = failure_of(check_copy_arguments, unfinished)
    assert message.startswith("`copy_arguments` is not finished yet")


def test_returning_the_text_undecoded_is_caught():
    message = failure_of(check_fresh_value, lambda text: text)
    assert "A JSON object decodes to an equal dict: not yet." in message
    assert "(a str)" in message


def test_a_python_literal_parser_is_caught_where_json_differs():
    message = failure_of(check_fresh_value, ast.literal_eval)
    assert "raised ValueError" in message


def test_a_cached_decode_that_shares_values_between_calls_is_caught():
    cache = {}

    def cached(text):
        if text not in cache:
            cache[text] = json.loads(text)
        return cache[text]

    message = failure_of(check_fresh_value, cached)
    assert "Every call returns a brand-new value: not yet." in message


def test_a_decode_that_turns_floats_into_ints_is_caught():
    def floats_to_ints(text):
        return json.loads(text, parse_float=lambda digits: int(float(digits)))

    message = failure_of(check_fresh_value, floats_to_ints)
    assert "1.0 a float" in message


def test_an_unfinished_fresh_value_says_it_is_not_finished():
    assert failure_of(check_fresh_value, unfinished).startswith("`fresh_value` is not finished yet")


def test_exact_type_problem_tells_true_from_one_and_ignores_key_order():
    assert exact_type_problem({"a": 1, "b": [1.0]}, {"b": [1.0], "a": 1}) is None
    assert "a bool" in exact_type_problem([1], [True])
    assert "[0]" in exact_type_problem([1.0], [1])


# Each wrong function, and the one hint among the step's hints meant for it.
OWNERSHIP_HINTS = {
    "same dict": "returned the very same dict it was given",
    "every level": "copy every level",
    "decode": "Decode the JSON text (json.loads)",
    "exact types": "JSON true must stay True",
    "afresh": "Decode a brand-new value on every call",
}


def whole_floats_become_ints(text):
    return json.loads(
        text, parse_float=lambda s: int(float(s)) if float(s).is_integer() else float(s)
    )


def cached_decode(text, cache={}):  # noqa: B006 - the shared cache is the bug on show
    return cache.setdefault(text, json.loads(text))


@pytest.mark.parametrize(
    ("check", "function", "hint"),
    [
        (check_copy_arguments, lambda arguments: arguments, "same dict"),
        (check_copy_arguments, dict, "every level"),
        (check_fresh_value, lambda text: text, "decode"),
        (check_fresh_value, whole_floats_become_ints, "exact types"),
        (check_fresh_value, cached_decode, "afresh"),
    ],
    ids=["same-dict", "shallow-copy", "undecoded-text", "floats-to-ints", "cached"],
)
def test_each_wrong_function_gets_its_own_hint_and_no_other(check, function, hint):
    message = failure_of(check, function)
    assert [name for name, words in OWNERSHIP_HINTS.items() if words in message] == [hint]
