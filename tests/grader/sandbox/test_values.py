"""Tagged values keep exact types through JSON and describe hostile objects without running them."""

import collections
import enum
import json
import math

import pytest

from grader.sandbox.inside.picture import (
    MAX_DEPTH,
    MAX_STR,
    SHARED_TEXT,
    Limit,
    Opaque,
    Unhashed,
    same_picture,
    tag,
    untag,
)
from grader.sandbox.values import same_json

pytestmark = []

PLAIN = {
    "scalars": [None, True, False, 0, -7, 10**40, 1.0, -0.0, "", "é😀"],
    "containers": {"list": [1, [2]], "dict": {"a": {"b": None}}, "empty": [{}, []]},
    "tuple": (1, (2, "three")),
    "floats": [math.inf, -math.inf, 5e-324, 1e308],
    "surrogate": ["\ud800", {"\udfff": 1}],
    "huge_int": 10**5000,
    "plain_int_edges": [2**63 - 1, 2**63, -(2**63) + 1, -(2**63)],
    "tag_like_dict": {"t": "same", "v": 0},
}


def through_json(value):
    """Send a tagged value through JSON text, as the pipe between the processes does."""
    return untag(json.loads(json.dumps(tag(value))))


@pytest.mark.parametrize("value", PLAIN.values(), ids=PLAIN.keys())
def test_round_trip_keeps_values_and_exact_types(value):
    assert same_json(through_json(value), value)
    assert through_json(value) == value


def test_sets_and_dicts_keyed_by_more_than_str_come_back_as_their_items_in_order():
    decoded = through_json([{3}, frozenset({4}), {1: "int key", (1,): "tuple key"}])
    assert decoded == [
        Unhashed("set", (3,)),
        Unhashed("frozenset", (4,)),
        Unhashed("dict", ((1, "int key"), ((1,), "tuple key"))),
    ]


class Stamp:
    """An object the trusted side knows only by its type's name."""


def test_keys_known_only_by_their_type_are_never_hashed_or_compared(monkeypatch):
    def refuse(*_args):
        raise AssertionError("a decoded key was hashed or compared")

    monkeypatch.setattr(Opaque, "__eq__", refuse)
    monkeypatch.setattr(Opaque, "__hash__", refuse)
    decoded = through_json([{Stamp(): 0 for _ in range(6000)}, {Stamp(), Stamp()}])
    assert [len(item.items) for item in decoded] == [6000, 2]


def test_nan_survives_the_round_trip():
    assert math.isnan(through_json([math.nan])[0])


def test_true_and_one_stay_different():
    assert not same_json(through_json([True, 1.0]), [1, 1])
    assert [type(item) for item in through_json([True, 1, 1.0])] == [bool, int, float]


def test_plain_json_values_travel_as_the_json_they_are():
    value = ["r-1", 7, -0.5, True, None, ["nested"]]
    assert tag(value) == value
    assert json.dumps(tag(value)) == json.dumps(value)


def test_a_dict_is_a_tagged_node_keeping_its_order_so_no_key_is_read_as_a_tag():
    picture = tag({"t": "same", "v": 0})
    assert picture == {"t": "dict", "v": [["t", "same"], ["v", 0]]}
    assert list(through_json({"b": 1, "a": 2})) == ["b", "a"]


@pytest.mark.parametrize(
    ("first", "second"),
    [(1, True), (1, 1.0), (0.0, -0.0), ([1], [True]), ({"a": 1, "b": 2}, {"b": 2, "a": 1})],
)
def test_pictures_of_values_python_calls_equal_are_not_the_same_picture(first, second):
    assert first == second
    assert not same_picture(tag(first), tag(second))


def test_equal_values_have_the_same_picture_nan_included():
    assert same_picture(tag([math.nan, "x" * SHARED_TEXT]), tag([math.nan, "x" * SHARED_TEXT]))


class Color(enum.IntEnum):
    RED = 1


class Sneaky(list):
    def __iter__(self):
        raise AssertionError("the picture must not call the object's own methods")


class Meta(type):
    @property
    def __name__(cls):
        raise AssertionError("the picture must not call a metaclass property")


class Strange(metaclass=Meta):
    pass


def test_subclasses_and_objects_become_opaque_with_their_content():
    decoded = through_json([Color.RED, collections.OrderedDict(a=1), Sneaky([1, 2]), Strange()])
    assert decoded[0] == Opaque("Color", "int", 1)
    assert decoded[1] == Opaque("OrderedDict", "dict", {"a": 1})
    assert decoded[2] == Opaque("Sneaky", "list", [1, 2])
    assert decoded[3] == Opaque("Strange")


def test_cycles_and_depth_are_bounded():
    loop = [1]
    loop.append(loop)
    decoded = through_json(loop)
    depth = 0
    while isinstance(decoded, list):
        decoded, depth = decoded[1], depth + 1
    assert decoded == Limit("deep")
    assert depth == MAX_DEPTH + 1


def test_long_strings_are_cut():
    assert through_json("x" * (MAX_STR + 5)) == Limit("cut", "x" * MAX_STR)


class Text(str):
    pass


def test_a_long_text_repeated_is_carried_once_and_comes_back_everywhere():
    text = "a" * 100_000
    value = [text] * 6 + ["b" + text[1:]]  # equal copies, and one that differs at the start
    carried = json.dumps(tag(value))
    assert len(carried) < 2 * len(text) + 1000
    assert through_json(value) == value


def test_long_texts_are_matched_in_the_order_the_picture_is_taken():
    long_key, long_value = "k" * SHARED_TEXT, "v" * SHARED_TEXT
    value = {
        long_key: [long_value, long_key],
        "tail": (Text(long_value), long_value, "k" * (SHARED_TEXT - 1)),
        long_value: long_key,
    }
    decoded = through_json(value)
    assert list(decoded) == [long_key, "tail", long_value]
    assert decoded[long_key] == [long_value, long_key]
    assert decoded["tail"] == (Opaque("Text", "str", long_value), long_value, "k" * 1023)
    assert decoded[long_value] == long_key


def test_a_copied_text_and_an_equal_one_give_one_picture():
    text = "é" * SHARED_TEXT
    copy = "".join(reversed(text))  # equal, but another object
    assert copy is not text
    assert tag([text, copy]) == tag([text, text])


def test_a_long_text_of_surrogate_pairs_is_told_by_code_points_each_time_it_is_met():
    text = "\ud83d\ude00" * SHARED_TEXT  # JSON readers would join each pair into one character
    picture = tag([text, text])
    assert picture == [{"t": "str", "v": [ord(unit) for unit in text]}] * 2
    assert through_json([text, text]) == [text, text]


def test_same_json_ignores_key_order_but_not_types():
    assert same_json({"a": 1, "b": [2.0]}, {"b": [2.0], "a": 1})
    assert not same_json({"a": 1}, {"a": 1.0})
    assert not same_json({"a": [False]}, {"a": [0]})
