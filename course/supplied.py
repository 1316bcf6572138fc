"""The names the course supplies to students: three expected-failure exceptions and a JSON checker.

Students do not write these and are not graded on them. A submission may hold its own copy,
but lessons and the grader always use this one (see docs/CONTRACT.md, "What students are given").
"""

import math
from typing import Any

# The failure codes' home is course/contract.py; the grader's hidden tests still read them here.
from course.contract import FAILURE_CODES as FAILURE_CODES

__all__ = [
    "InvalidInputError",
    "NotFoundError",
    "PermissionDeniedError",
    "check_json_value",
]


class InvalidInputError(Exception):
    """A handler raises this when its arguments are wrong: missing, mistyped or out of range."""


class PermissionDeniedError(Exception):
    """A handler raises this when the caller may not do what it asked."""


class NotFoundError(Exception):
    """A handler raises this when the thing it was asked to look up does not exist."""


def check_json_value(value: object) -> None:
    """Return None when `value` is in the JSON value vocabulary, else raise TypeError or ValueError.

    The vocabulary is None, bool, int, finite float, str, list, and dict with str keys, as exact
    built-in types: a subclass such as an IntEnum member is outside. Cycles are rejected; a list
    that appears twice without containing itself is fine, because JSON simply writes it twice.
    Strings are not inspected, and there is no depth limit beyond Python's own recursion limit.
    """
    _check(value, set())


def _check(value: Any, open_containers: set[int]) -> None:
    """Check one value; `open_containers` holds the ids of the containers on the current path."""
    kind = type(value)
    # `is`, not `in`: `in` asks the type's metaclass __eq__, which a subclass's may fake.
    if value is None or kind is bool or kind is int or kind is str:
        return
    if kind is float:
        if not math.isfinite(value):
            raise ValueError(f"{value!r} is not a finite float, so JSON cannot carry it")
        return
    if kind is not list and kind is not dict:
        raise TypeError(f"a {kind.__name__} is outside the JSON value vocabulary")
    if id(value) in open_containers:
        raise ValueError(f"this {kind.__name__} contains itself, and JSON cannot express a cycle")
    open_containers.add(id(value))
    try:
        if kind is list:
            for item in value:
                _check(item, open_containers)
        else:
            for key, item in value.items():
                if type(key) is not str:
                    raise TypeError(f"dict keys must be str, not {type(key).__name__}")
                _check(item, open_containers)
    finally:
        open_containers.discard(id(value))
