"""Build the values a tool call hands back from the trusted side's recipes (exceptions: raising.py).

Only the guard calls these functions, and only on objects it made itself or on a submission's
objects through exact built-in methods, so no student code runs while they do.
"""

from __future__ import annotations

import builtins
import collections
import decimal
from typing import TYPE_CHECKING, Any

from grader.sandbox.inside.faults import (
    HiddenFaultError,
    Incomparable,
    Items,
    Level,
    NotFoundError,
    Ratio,
    Reading,
    Text,
    Thing,
    Truthless,
)
from grader.sandbox.inside.picture import untag
from grader.sandbox.inside.raising import instance

if TYPE_CHECKING:
    from collections.abc import Iterator

    from grader.sandbox.inside.protocol import Tagged

# Private built-ins: see grader/sandbox/inside/picture.py.
__builtins__ = dict(vars(builtins))  # type: ignore[assignment]

# Bound now: a submission may replace these in their modules, and the guard must not call
# what it put there.
_HIGH = Level.HIGH
_ORDERED_DICT = collections.OrderedDict
_DEFAULT_DICT = collections.defaultdict
_DECIMAL = decimal.Decimal
_SET_ATTRIBUTE = object.__setattr__

# Exceptions a tool returns instead of raising: a value outside the vocabulary like any other,
# whatever a code its class would have if it were raised.
RETURNED_EXCEPTIONS = ("returned_not_found", "returned_key_error", "returned_interrupt")
# Objects whose truth value or comparison raises: a careless `if not result` raises for them.
TOUCHY_RESULTS = ("truthless", "incomparable")

# Every value maker `build` knows: the trusted side refuses any other name before asking.
MAKERS = frozenset(
    (
        *("deep_list", "list_cycle", "dict_cycle", "shared_list", "exception"),
        *("str_subclass_key", "str_subclass_top", "int_enum", "list_subclass", "str_subclass"),
        *("float_subclass", "ordered_dict", "default_dict", "decimal", "object"),
        *("bytes", "bytearray", "complex", "coroutine", "placed", "long_text"),
        "large_arguments",
        *("dataclass", "generator"),
        *RETURNED_EXCEPTIONS,
        *TOUCHY_RESULTS,
    )
)


def made_by_maker(recipe: Tagged) -> bool:
    """Say whether `build` makes the recipe's value with a maker, not from a plain picture.

    Only such a value can hold an object outside the pictures' types, a coroutine among them.
    """
    return type(recipe) is dict and recipe.get("make") is not None


def build(recipe: Tagged) -> object:
    """Return a new value from a recipe: a picture, or a named maker for what JSON lacks."""
    maker = recipe.get("make") if type(recipe) is dict else None
    if maker is None:
        return untag(recipe, hashing=True)  # the trusted side's own picture: real sets and keys
    if maker == "deep_list":
        value: list[Any] = []
        for _ in range(recipe["depth"] - 1):
            value = [value]
        return value
    if maker == "list_cycle":
        value = [1, 2]
        value.append(value)
        return {"items": value}
    if maker == "dict_cycle":
        record: dict[str, object] = {"name": "loop"}
        record["self"] = record
        return [record]
    if maker == "shared_list":
        shared = [1, "two", {"three": 3.0}]
        return {"first": shared, "second": shared}
    if maker == "str_subclass_key":
        return {str.__new__(Text, "key"): 1}
    if maker == "str_subclass_top":
        return str.__new__(Text, "text")
    if maker == "exception":
        return {"error": instance(HiddenFaultError, recipe.get("message", ""))}
    if maker == "placed":
        return _placed(recipe)
    if maker == "long_text":  # a text of a mebibyte or more, without a mebibyte of recipe
        text = str.__mul__(recipe["text"], recipe["count"])
        return [text] if recipe.get("in_list") else text
    if maker == "large_arguments":
        return large_arguments(recipe)
    return {"data": [_foreign(maker)]}


def large_arguments(recipe: dict[str, Any]) -> dict[str, object]:
    """Return arguments of hundreds of KiB to MiB, many keys wide, from a line of recipe.

    Wide and nested alike: a shortcut that skips the copy of "big" arguments, however it
    measures them (bytes, keys, items), meets them. One text object is shared by every key,
    so the worker's picture of them carries it once (picture.py, SHARED_TEXT); one list a key
    keeps them nested (a shallow copy shows) with as few objects as that allows, since each
    costs the worker's walks and the student's copy time.
    """
    text = str.__mul__(recipe["text"], recipe["repeat"])
    return {f"k{n}": [text] for n in range(recipe["keys"])}


def _placed(recipe: dict[str, Any]) -> object:
    """Return a picture's value with one foreign object put where the recipe says.

    "at" is a path of list indexes and dict keys to a list or dict of the value; the object
    (made by the maker named in "item") goes in that list at the path's last index, or in that
    dict under its last key. The generated scenarios hide values this way anywhere in a tree.
    """
    item = _foreign(recipe["item"])
    if not recipe["at"]:
        return item  # the value itself
    value = untag(recipe["value"], hashing=True)
    *path, last = recipe["at"]
    node: Any = value
    for step in path:
        node = node[step]
    if type(node) is list:
        list.insert(node, last, item)
    else:
        dict.__setitem__(node, last, item)
    return value


def _readings() -> Iterator[int]:
    """A generator function of the guard's own: a generator is a value outside the vocabulary."""
    yield 1
    yield 2


async def _pending() -> int:
    """A coroutine function of the guard's own: its coroutine is a value outside the vocabulary."""
    return 1


def _foreign(maker: str) -> object:
    """Return a value of a type outside the JSON vocabulary (classes bound at import, see above)."""
    if maker == "int_enum":
        return _HIGH
    if maker == "list_subclass":
        items = instance(Items)
        list.extend(items, [1, 2])
        return items
    if maker == "str_subclass":
        return str.__new__(Text, "text")
    if maker == "float_subclass":
        return float.__new__(Ratio, 1.5)
    if maker == "ordered_dict":
        return _ORDERED_DICT(a=1)
    if maker == "default_dict":
        return _DEFAULT_DICT(list, a=[1])
    if maker == "decimal":
        return _DECIMAL("1.5")
    if maker == "object":
        return instance(Thing)
    if maker == "dataclass":  # its fields set as data: a dataclass's __init__ may be patched
        reading = instance(Reading)
        _SET_ATTRIBUTE(reading, "name", "probe")
        _SET_ATTRIBUTE(reading, "values", [1, 2])
        return reading
    if maker == "generator":
        return _readings()
    if maker == "truthless":
        return instance(Truthless)
    if maker == "incomparable":
        return instance(Incomparable)
    if maker == "returned_not_found":
        return instance(NotFoundError, "the record was not found")
    if maker == "returned_key_error":
        return instance(KeyError, "record")
    if maker == "returned_interrupt":
        return instance(KeyboardInterrupt, "returned, never raised")
    if maker == "coroutine":
        return _pending()  # closed by the guard when its scenario ends (report.close_coroutines)
    simple = {"bytes": b"bytes", "bytearray": bytearray(b"bytes"), "complex": 1 + 2j}
    return simple[maker]  # the trusted side names only makers of MAKERS (handlers.check_spec)


def mutate_deeply(value: object, released: list[object]) -> None:
    """Change every list and dict reachable from `value`, at every depth.

    Only exact built-in methods touch the nodes, and a cleared dict gains a plain `str` key, so
    no key's `__eq__` or `__hash__` runs. Whatever the change lets go of is appended to
    `released` instead of being freed here: a student's `__del__` must not run inside the guard.
    """
    containers: list[Any] = []
    stack: list[Any] = [value]
    while stack and len(containers) < 100_000:
        node = stack.pop()
        # issubclass on the real type: an object cannot fake it the way it can fake __class__.
        if issubclass(type(node), dict):
            containers.append(node)
            stack.extend(dict.values(node))
        elif issubclass(type(node), list):
            containers.append(node)
            stack.extend(list.__iter__(node))
    released.append(containers)
    for node in containers:
        if issubclass(type(node), dict):
            released.append(list(dict.items(node)))
            dict.clear(node)
            dict.__setitem__(node, "__changed__", [True])
        else:
            list.reverse(node)
            list.append(node, "__changed__")
