"""The classes whose instances the worker hands to student code: tool errors and odd values.

Student code can reach everything here (an exception's class, a value's type), so this module
holds classes only. The guard's factories live in `raising` and `kinds`, which bind these names
for themselves: a submission that edits this module changes what it sees, never what the guard
builds.
"""

from __future__ import annotations

import dataclasses
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


class UnhashableClass(type):
    """A metaclass with an `__eq__` and so no hash: its classes cannot be dict keys or set items."""

    def __eq__(cls, other: object) -> bool:
        return cls is other

    __hash__ = None  # type: ignore[assignment]


class UnhashableInputError(InvalidInputError, metaclass=UnhashableClass):
    """A course subclass whose class is unhashable: a table keyed by class cannot look it up."""


class UnhashableFaultError(Exception, metaclass=UnhashableClass):
    """A plain tool bug whose class is unhashable."""


class EqualToAll(type):
    """A metaclass whose classes claim to equal any class: `==` and `in` on classes believe it."""

    def __eq__(cls, other: object) -> bool:
        return True

    __hash__ = type.__hash__


class ClaimsEveryClassError(Exception, metaclass=EqualToAll):
    """A plain tool bug whose class claims to be every class (tool_failed all the same)."""


class InterruptedInputError(InvalidInputError, KeyboardInterrupt):
    """Both an Exception (a course class) and a KeyboardInterrupt: an Exception, so a code."""


class ExitingMissingError(SystemExit, NotFoundError):
    """Both a SystemExit and a course class, SystemExit first: an Exception, so a code."""


class StoppedFaultError(GeneratorExit, Exception):
    """Both a GeneratorExit and a plain Exception: an Exception, so tool_failed."""


class DeepMissingError(QuietMissingError):
    """A course class two subclasses down."""


class BrokenTextError(Exception):
    """An exception whose own str() and repr() raise."""

    def __str__(self) -> str:
        raise RuntimeError("str() of this exception fails on purpose")

    def __repr__(self) -> str:
        raise RuntimeError("repr() of this exception fails on purpose")


class BrokenTextDeniedError(PermissionDeniedError):
    """A course subclass whose own str() and repr() raise."""

    __str__ = BrokenTextError.__str__
    __repr__ = BrokenTextError.__repr__


class HiddenStop(BaseException):
    """A BaseException that is not an Exception, defined by a tool."""


class FalsyInputError(InvalidInputError):
    """A course subclass whose truth value is False: `if error:` takes it for no error at all."""

    def __bool__(self) -> bool:
        return False


class FalsyFaultError(Exception):
    """A plain tool bug whose truth value is False (tool_failed all the same)."""

    def __bool__(self) -> bool:
        return False


class EmptyMissingError(NotFoundError):
    """A course subclass with a len() of 0, so its truth value is False as well."""

    def __len__(self) -> int:
        return 0


class Touchy:
    """A mixin whose instances answer a lookup of a missing attribute with a RuntimeError.

    `getattr(error, "code", None)` and `hasattr(error, "errno")` only swallow AttributeError,
    so they raise here; isinstance and type() never look attributes up, and the contract asks
    nothing more of a submission. A missing dunder name still gives AttributeError, as Python's
    own protocols expect it to: the standard library looks up `__notes__` that way when it
    formats a traceback, which a submission may do privately (rule 3).
    """

    def __getattr__(self, name: str) -> object:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        raise RuntimeError(f"this error has no attribute {name!r}, and says so loudly")


class TouchyFaultError(Touchy, Exception):
    """A plain tool bug whose unknown attributes raise RuntimeError."""


class TouchyDeniedError(Touchy, PermissionDeniedError):
    """A course subclass whose unknown attributes raise RuntimeError."""


class HashlessInputError(InvalidInputError):
    """A course subclass whose instances cannot be hashed: no set or dict key can hold them."""

    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = None  # type: ignore[assignment]


class HashlessFaultError(Exception):
    """A plain tool bug whose instances cannot be hashed."""

    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = None  # type: ignore[assignment]


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


@dataclasses.dataclass
class Reading:
    """A dataclass a tool returns: `dataclasses.asdict` would make it a dict, which is no excuse."""

    name: str = ""
    values: list[int] = dataclasses.field(default_factory=list)


class Truthless:
    """A returned object whose truth value raises: `if not result:` raises inside invoke_tool."""

    def __bool__(self) -> bool:
        raise RuntimeError("this object has no truth value")


class Incomparable:
    """A returned object that raises when compared: `result == None` raises inside invoke_tool."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("this object cannot be compared")

    def __ne__(self, other: object) -> bool:
        raise RuntimeError("this object cannot be compared")

    __hash__ = None  # type: ignore[assignment]
