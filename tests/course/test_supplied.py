"""The supplied `check_json_value` accepts exactly the vocabulary CONTRACT.md names."""

import enum
import math
import sys
from collections import OrderedDict

import pytest

from course.supplied import (
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
    check_json_value,
)

pytestmark = []


class Colour(enum.IntEnum):
    RED = 1


class Flag(int):
    """An int subclass: outside the vocabulary, although json.dumps would print it."""


class Text(str):
    """A str subclass."""


def nested_lists(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


ACCEPTED = {
    "None": None,
    "True": True,
    "False": False,
    "zero": 0,
    "negative int": -12,
    "huge int": 10**400,
    "finite float": 1.5,
    "negative zero": -0.0,
    "empty string": "",
    "non-ASCII string": "東京 🚀 café",
    "lone surrogate string": "\ud800",
    "empty list": [],
    "empty dict": {},
    "nested mix": {"a": [1, 2.5, None, {"b": [True, "x"]}]},
    "50 levels of lists": nested_lists(50),
}


@pytest.mark.parametrize("value", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_values_in_the_vocabulary_return_none(value):
    assert check_json_value(value) is None


def test_a_list_shared_twice_without_a_cycle_is_accepted():
    shared = [1, 2]
    assert check_json_value({"a": shared, "b": shared, "c": [shared]}) is None


REJECTED_TYPES = {
    "tuple": (1, 2),
    "set": {1, 2},
    "frozenset": frozenset(),
    "bytes": b"abc",
    "bytearray": bytearray(b"x"),
    "complex": 1j,
    "object": object(),
    "function": len,
    "IntEnum member": Colour.RED,
    "int subclass": Flag(3),
    "str subclass": Text("x"),
    "OrderedDict": OrderedDict(a=1),
    "int key": {1: "a"},
    "None key": {None: "a"},
    "tuple key": {(1, 2): "a"},
    "str subclass key": {Text("k"): 1},
    "bool key": {True: 1},
    "tuple nested deep": {"a": [{"b": [(1,)]}]},
    "set inside a list": [[{1}]],
}


@pytest.mark.parametrize("value", REJECTED_TYPES.values(), ids=REJECTED_TYPES.keys())
def test_values_outside_the_vocabulary_raise_type_error(value):
    with pytest.raises(TypeError):
        check_json_value(value)


NON_FINITE = {
    "NaN": math.nan,
    "infinity": math.inf,
    "minus infinity": -math.inf,
    "NaN in a dict": {"x": [1.0, math.nan]},
}


@pytest.mark.parametrize("value", NON_FINITE.values(), ids=NON_FINITE.keys())
def test_non_finite_floats_raise_value_error(value):
    with pytest.raises(ValueError):
        check_json_value(value)


def test_a_list_that_contains_itself_raises_value_error():
    loop = [1]
    loop.append(loop)
    with pytest.raises(ValueError, match="cycle"):
        check_json_value(loop)


def test_a_dict_cycle_through_a_list_raises_value_error():
    outer = {"items": []}
    outer["items"].append({"parent": outer})
    with pytest.raises(ValueError, match="cycle"):
        check_json_value(outer)


def test_nesting_beyond_the_recursion_limit_raises_recursion_error():
    with pytest.raises(RecursionError):
        check_json_value(nested_lists(sys.getrecursionlimit() + 10))


def test_checking_leaves_the_value_unchanged():
    value = {"a": [1, {"b": "c"}]}
    check_json_value(value)
    assert value == {"a": [1, {"b": "c"}]}


@pytest.mark.parametrize("cls", [InvalidInputError, PermissionDeniedError, NotFoundError])
def test_each_supplied_exception_is_a_direct_subclass_of_exception(cls):
    assert cls.__bases__ == (Exception,)
