"""Vocabulary: a result outside the JSON value vocabulary, or not encodable as UTF-8 JSON text."""

import math

import pytest

from grader.hidden.probes import describe_raise, returns, returns_made, scenario

pytestmark = pytest.mark.category("vocabulary")

OUTSIDE = {
    "tuple": {"pair": (1, 2)},
    "set": {"tags": {"a"}},
    "frozenset": [frozenset({1})],
    "nan": {"ratio": math.nan},
    "infinity": [1.0, math.inf],
    "int_key": {1: "one"},
    "bool_key": {True: "yes"},
    "tuple_key": {(1, 2): "pair"},
    "deep_nan": {"a": [{"b": [{"c": math.nan}]}]},
    "lone_surrogate": {"text": "abc\ud800"},
    "surrogate_key": {"\udfff": 1},
    "huge_int": {"n": 10**5000},
}
MADE = (
    "int_enum",
    "list_subclass",
    "str_subclass",
    "float_subclass",
    "ordered_dict",
    "bytes",
    "decimal",
    "object",
    "list_cycle",
    "dict_cycle",
)
INSIDE = {
    "nested": {"a": [1, 2.5, True, None, {"b": ["c"]}]},
    "shared_twice": None,  # built by the worker: one list appearing twice, without a cycle
    "large_int": {"n": 10**300},
    "negative_zero": [-0.0],
    "extreme_float": [1e308, 5e-324],
    "empty_key": {"": ""},
    "astral_text": {"emoji": "😀𝄞", "nul": "\x00"},
    "deep_50": None,  # built below: nested 50 levels
}


def deep(levels):
    value = "bottom"
    for _ in range(levels - 1):
        value = [value]
    return value


def error_of(observation):
    if observation.envelope is None:
        return describe_raise(observation)
    return observation.field("error")


@pytest.mark.parametrize("value", OUTSIDE.values(), ids=OUTSIDE.keys())
def test_value_outside_vocabulary_is_invalid_result(submission, value):
    """A result holding a value outside the JSON vocabulary, at any depth, gives invalid_result."""
    assert error_of(submission.call(scenario(returns(value)))) == "invalid_result"


@pytest.mark.parametrize("maker", MADE)
def test_object_outside_vocabulary_is_invalid_result(submission, maker):
    """A result holding a subclass, a foreign object or a cycle gives invalid_result."""
    assert error_of(submission.call(scenario(returns_made(maker)))) == "invalid_result"


def test_nesting_too_deep_to_encode_is_invalid_result(submission):
    """A result nested too deeply for json.dumps gives invalid_result."""
    observation = submission.call(scenario(returns_made("deep_list", depth=5000)))
    assert error_of(observation) == "invalid_result"


def test_outside_and_too_large_gets_either_code(submission):
    """A result both outside the vocabulary and too large may get either code."""
    observation = submission.call(scenario(returns(("x" * 100,) * 20), max_result_bytes=50))
    assert error_of(observation) in ("invalid_result", "result_too_large")


@pytest.mark.parametrize("name", INSIDE)
def test_value_inside_vocabulary_is_accepted(submission, name):
    """A result inside the vocabulary (shared lists, big ints, odd floats, any text) succeeds."""
    if name == "shared_twice":
        probe = scenario(returns_made("shared_list"), max_result_bytes=10**6)
    else:
        value = deep(50) if name == "deep_50" else INSIDE[name]
        probe = scenario(returns(value), max_result_bytes=10**6)
    observation = submission.call(probe)
    assert observation.envelope is not None, describe_raise(observation)
    assert observation.field("error") is None
