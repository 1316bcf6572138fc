"""The classes whose instances the worker hands to student code: tool errors and odd values.

Student code can reach everything here (an exception's class, a value's type), so this module
holds classes only. The guard's factories live in `kinds`, which binds these names for itself:
a submission that edits this module changes what it sees, never what the guard builds.
"""

from __future__ import annotations

import enum

from course import supplied

# The course's own classes, bound before a submission could replace them in `course.supplied`.
InvalidInputError = supplied.InvalidInputError
PermissionDeniedError = supplied.PermissionDeniedError
NotFoundError = supplied.NotFoundError


class QuietInputError(InvalidInputError):
    """A subclass of a course class, as a tool's own error type would be."""


class QuietDeniedError(PermissionDeniedError):
    """A subclass of a course class."""


class QuietMissingError(NotFoundError):
    """A subclass of a course class."""


class InputValueError(InvalidInputError, ValueError):
    """A course class mixed with a built-in exception, course class first."""


class ValueInputError(ValueError, InvalidInputError):
    """A course class mixed with a built-in exception, built-in first."""


class DeniedPermissionError(PermissionError, PermissionDeniedError):
    """A course class mixed with the built-in PermissionError."""


class MissingKeyError(KeyError, NotFoundError):
    """A course class mixed with KeyError, whose str() adds quotes."""


class AmbiguousError(InvalidInputError, NotFoundError):
    """An instance of two course classes: either code is correct."""


class HiddenFaultError(Exception):
    """A plain bug in a tool, with a type name that must never reach an envelope."""


class Unprintable:
    """An exception argument whose str() and repr() raise, so the exception's own do too.

    Carried by exceptions of exact built-in or course classes, so a test of rule 3 does not
    also depend on how a submission treats subclasses.
    """

    def __str__(self) -> str:
        raise RuntimeError("str() of this argument fails on purpose")

    def __repr__(self) -> str:
        raise RuntimeError("repr() of this argument fails on purpose")


class HiddenStop(BaseException):
    """A BaseException that is not an Exception, defined by a tool."""


# Same name as the course class, but unrelated to it: only the class decides the code.
LookalikeInputError = type("InvalidInputError", (Exception,), {"__module__": __name__})
LookalikeMissingError = type("NotFoundError", (LookupError,), {"__module__": __name__})


class Level(enum.IntEnum):
    """An int subclass: equal to an int, but outside the vocabulary."""

    HIGH = 3


class Items(list[object]):
    """A list subclass."""


class Text(str):
    """A str subclass."""


class Ratio(float):
    """A float subclass."""


class Thing:
    """A plain object with no JSON meaning."""
