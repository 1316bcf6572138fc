"""Pictures of values: `tag` runs inside the worker, `untag` on the trusted side.

JSON alone cannot tell a tuple from a list, and has no word for a set, a lone surrogate, an int
of ten thousand digits or an `IntEnum` member. A picture says the exact type of every node, so
the trusted side can judge "same types at every depth" itself, while the common values travel
as the plain JSON they are, which keeps the messages short and cheap to read and write:

    null, true, false        None, True, False
    -7, 2.5, NaN, -0.0       an int (|n| < 2**63), a float (its repr: NaN and infinities too)
    "text"                   a str (a long one is numbered: see "same")
    [picture, ...]           a list
    {"t": "int", "v": "-1f"}                            a larger int, in hex digits
    {"t": "tuple"|"set"|"frozenset", "v": [picture, ...]}    (a set comes back as Unhashed)
    {"t": "dict", "v": [[key picture, value picture], ...]}  (Unhashed if a key is not text)
    {"t": "other", "type": "IntEnum name", "base": "int" or null, "v": picture or null}
    {"t": "deep"} | {"t": "many"}   the value was deeper or larger than a picture may be
    {"t": "cut", "v": "first characters", "size": n}   a string too long to carry whole
    {"t": "str", "v": [code point, ...]}    a str holding a high surrogate then a low one, which
                                            JSON readers would join into one character
    {"t": "same", "v": k}           the same text as the k-th long string of this picture

Every JSON object is a tagged node, so nothing a student's dict holds can be read as a tag. JSON
text tells apart what Python's `==` does not (`1`, `true` and `1.0`; `0.0` and `-0.0`), so two
pictures are compared by their text (`same_picture`).

A long text (SHARED_TEXT characters or more) is carried once per picture: a megabyte result
made of one text repeated crosses the pipe once, not once per copy. Long strings are numbered
in the order the picture is taken (depth first, a dict's key before its value), which is the
order `untag` reads them in, so a picture still describes its value exactly.

Taking the picture never calls the object's own methods (no `__repr__`, `__iter__` or
`__eq__` of a subclass), so a value cannot run code or hide its content while it is described.
"""

from __future__ import annotations

import builtins
import re
from _json import encode_basestring_ascii, make_encoder
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grader.sandbox.inside.protocol import Tagged

# The guard's modules are never reachable from student code, and they look up built-ins in this
# private copy, so a submission that patches `builtins` cannot change how values are pictured.
# (mypy takes the name for the builtins module itself: this one line is not checked.)
__builtins__ = dict(vars(builtins))  # type: ignore[assignment]

MAX_DEPTH = 120
MAX_NODES = 20_000
MAX_STR = 200_000
SHARED_TEXT = 1024
# Two code units JSON text would read back as one character (the pair's astral character).
_SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]").search
# Ints this small travel as JSON numbers; larger ones in hex, which no digit limit refuses.
PLAIN_INT = 1 << 63

_TYPE_NAME = type.__dict__["__name__"]
_EXACT_INT = int.__dict__["__index__"]  # an int of a subclass, as a plain int: no code of its own
_EXACT_FLOAT = float.__dict__["__float__"]
_PLAIN_SCALARS: dict[type, str] = {
    type(None): "none",
    bool: "bool",
    int: "int",
    float: "float",
    str: "str",
}
_SEQUENCES: dict[type, str] = {list: "list", tuple: "tuple", set: "set", frozenset: "frozenset"}
# The same, as pairs searched by identity: looking a value's type up in a dict would hash it,
# and a metaclass's __hash__ or __eq__ is student code, which must never run inside the guard.
_SCALAR_PAIRS = tuple(_PLAIN_SCALARS.items())
_SEQUENCE_PAIRS = tuple(_SEQUENCES.items())


def _name_of(kind: type, pairs: tuple[tuple[type, str], ...]) -> str | None:
    """Return the name `pairs` give the exact type `kind`, or None; compares by identity only."""
    for known, name in pairs:
        if kind is known:
            return name
    return None


@dataclass(frozen=True)
class Opaque:
    """A trusted-side stand-in for an object outside the plain built-in types, named by its type."""

    type_name: str
    base: str | None = None
    content: object = None


@dataclass(frozen=True)
class Unhashed:
    """A trusted-side stand-in for a set, or a dict with a key that is not text: its items.

    Rebuilding one would hash and compare the student's keys, and a key the trusted side knows
    only by its type (an Opaque) compares through Python code: thousands of keys that hash
    alike would cost the grader seconds. Its items stay in the order the picture gave them.
    """

    kind: str  # "set", "frozenset" or "dict"
    items: tuple[Any, ...]  # a set's items, or a dict's (key, value) pairs


@dataclass(frozen=True)
class Limit:
    """A trusted-side stand-in for a part of a value that was too deep or too large to carry."""

    reason: str  # "deep", "many" or "cut"
    prefix: str = ""


def type_name(cls: type) -> str:
    """Return a class's own `__name__`, ignoring any metaclass trickery."""
    name = _TYPE_NAME.__get__(cls, type)
    return name if type(name) is str else "?"


def entry(mapping: dict[Any, Any], name: str) -> Any:
    """Return what `mapping` holds under the text `name` (None if nothing), as dict.get would.

    dict.get compares `name` with any stored key of the same hash through that key's own
    `__eq__`: a str subclass of the student's, with a matching `__hash__`, would run its code
    inside the guard. Here keys are compared as exact strings: an exact `str` key first, as
    dict.get finds it, else the first key of a str subclass with that text.
    """
    found = None
    for key, item in dict.items(mapping):
        kind = type(key)
        if kind is str:
            if str.__eq__(key, name):
                return item
        elif found is None and issubclass(kind, str) and str.__eq__(key, name):
            found = (item,)
    return None if found is None else found[0]


def tag(value: object) -> Tagged:
    """Return the picture of `value`: plain JSON data of bounded depth and size."""
    return _Tagger().tag(value, 0)


class _Tagger:
    """Take one picture, counting nodes so a huge or cyclic value yields a bounded answer."""

    def __init__(self) -> None:
        self.nodes = 0
        # Each long text already carried, by its exact str (no student code hashes it).
        self.texts: dict[str, int] = {}

    def tag(self, value: Any, depth: int) -> Tagged:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            return {"t": "many"}
        if depth > MAX_DEPTH:
            return {"t": "deep"}
        kind = type(value)
        if kind is str:  # the common cases first, by identity
            return self.text(value)
        if kind is list:
            return [self.tag(item, depth + 1) for item in list.__iter__(value)]
        if kind is dict:
            return self.mapping(value, depth)
        name = _name_of(kind, _SCALAR_PAIRS)
        if name is not None:
            return self.scalar(name, value)
        name = _name_of(kind, _SEQUENCE_PAIRS)
        if name is not None:
            return self.sequence(name, kind, value, depth)
        return self.other(kind, value, depth)

    def scalar(self, name: str, value: Any) -> Tagged:
        """Return the picture of a scalar (or a subclass's content), as an exact built-in."""
        if name == "none":
            return None
        if name == "bool":
            return value is True
        if name == "int":
            number = _EXACT_INT(value)
            if -PLAIN_INT < number < PLAIN_INT:
                return number
            return {"t": "int", "v": int.__format__(number, "x")}
        if name == "float":
            return _EXACT_FLOAT(value)
        return self.text(value)

    def text(self, value: Any) -> Tagged:
        text = str.__str__(value)
        long = len(text) >= SHARED_TEXT
        if long:  # met again: found by its hash, computed once, before any scan of its MiB
            number = self.texts.get(text)
            if number is not None:
                return {"t": "same", "v": number}
        if not text.isascii() and _SURROGATE_PAIR(text) is not None:
            return {"t": "str", "v": [ord(character) for character in text[:MAX_STR]]}
        if len(text) > MAX_STR:
            return {"t": "cut", "v": text[:MAX_STR], "size": len(text)}
        if long:
            self.texts[text] = len(self.texts)
        return text

    def sequence(self, name: str, base: Any, value: object, depth: int) -> Tagged:
        items = [self.tag(item, depth + 1) for item in base.__iter__(value)]
        return items if name == "list" else {"t": name, "v": items}

    def mapping(self, value: Any, depth: int) -> Tagged:
        pairs = [
            [self.tag(key, depth + 1), self.tag(item, depth + 1)] for key, item in dict.items(value)
        ]
        return {"t": "dict", "v": pairs}

    def other(self, kind: type, value: object, depth: int) -> Tagged:
        """Describe a subclass by its base's content, and anything else by its type name only."""
        bases = (int, float, str, dict, list, tuple, set, frozenset)
        base = next((b for b in bases if issubclass(kind, b)), None)
        picture: Tagged = {"t": "other", "type": type_name(kind), "base": None, "v": None}
        if base is dict:
            picture.update(base="dict", v=self.mapping(value, depth))
        elif base in _SEQUENCES:
            name = _SEQUENCES[base]
            picture.update(base=name, v=self.sequence(name, base, value, depth))
        elif base is not None:
            picture.update(base=_PLAIN_SCALARS[base], v=self.scalar(_PLAIN_SCALARS[base], value))
        return picture


def untag(picture: Tagged, hashing: bool = False) -> Any:
    """Rebuild the value a picture describes, with the exact built-in types it names.

    A set, or a dict with a key that is not text, comes back as an Unhashed stand-in: its keys
    may be a student's. With `hashing`, for a picture the trusted side made itself (a tool's
    value), they come back as the real set or dict, whose keys run no student code.
    """
    return _Untagger(hashing).untag(picture)


def _refuse(value: object) -> None:
    raise TypeError(f"cannot write a {type_name(type(value))}")


# The C encoder itself, bound before student code runs (a submission that patches `json`
# cannot reach it). No cycle markers (pictures and messages are trees of bounded depth), ASCII
# only, compact, NaN and infinities written as JSON's readers take them; anything but plain
# data is refused. The channel writes its messages with it too, and the trusted side its
# requests and scenario keys (without the check for cycles, a third faster for a picture of rows).
_ENCODE = make_encoder(None, _refuse, encode_basestring_ascii, None, ":", ",", False, False, True)


def json_text(data: object) -> str:
    """Return JSON text for plain data (dict, list, str, int, float, bool, None), ASCII only."""
    return "".join(_ENCODE(data, 0))


def same_picture(first: Tagged, second: Tagged) -> bool:
    """Say whether two pictures describe the same value: their JSON texts are equal.

    Python's `==` would take `1`, `true` and `1.0` for one another, and would find NaN
    different from itself; the text says each exactly.
    """
    return str.__eq__(json_text(first), json_text(second))


def _text_key(key: object) -> bool:
    """Say whether a decoded key hashes as text: a str, or a str subclass's stand-in.

    Text hashes in C with this process's secret seed, so no student can make thousands of keys
    collide; a stand-in of a str subclass hashes its type's name and text the same way.
    """
    if type(key) is str:
        return True
    return type(key) is Opaque and key.base == "str" and type(key.content) is str


class _Untagger:
    """Rebuild one picture, keeping its long texts in order for the "same" nodes."""

    def __init__(self, hashing: bool = False) -> None:
        self.texts: list[str] = []
        self.hashing = hashing

    def untag(self, picture: Tagged) -> Any:
        kind = type(picture)
        if kind is str:
            if len(picture) >= SHARED_TEXT:
                self.texts.append(picture)
            return picture
        if kind is list:
            return [self.untag(item) for item in picture]
        if kind is dict:
            return self.node(picture)
        if picture is None or kind is bool or kind is int or kind is float:
            return picture
        raise TypeError(f"not a picture: {type_name(kind)}")

    def node(self, tagged: dict[str, Any]) -> Any:
        kind = tagged["t"]
        if kind == "int":
            return int(tagged["v"], 16)
        if kind == "same":
            return self.texts[tagged["v"]]
        if kind == "tuple":
            return tuple(self.untag(item) for item in tagged["v"])
        if kind in ("set", "frozenset"):
            items = tuple(self.untag(item) for item in tagged["v"])
            if self.hashing:
                return set(items) if kind == "set" else frozenset(items)
            return Unhashed(kind, items)
        if kind == "dict":
            pairs = [(self.untag(key), self.untag(item)) for key, item in tagged["v"]]
            if self.hashing or all(_text_key(key) for key, _ in pairs):
                return dict(pairs)
            return Unhashed("dict", tuple(pairs))
        if kind == "other":
            content = None if tagged["v"] is None else self.untag(tagged["v"])
            return Opaque(tagged["type"], tagged["base"], content)
        if kind == "cut":
            return Limit("cut", tagged["v"])
        if kind == "str":
            return "".join(map(chr, tagged["v"]))
        return Limit(kind)
