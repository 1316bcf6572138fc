"""Visible check for step 2: `failure_code` maps an exception to a stable code by class alone."""

from course.checks.harness import (
    CheckCase,
    CheckReport,
    Explainer,
    StudentFunction,
    run_checks,
    show,
)
from course.checks.oracle import handler_order_hint
from course.contract import INVALID_INPUT, NOT_FOUND, PERMISSION_DENIED, TOOL_FAILED
from course.supplied import InvalidInputError, NotFoundError, PermissionDeniedError
from course.tools import PRIVATE_MARKER

LEAK_HINT = "It carries the exception's private text: nothing of it may leave."


class TextWasRead(Exception):
    """Raised by a probe exception's __str__ or __repr__: the student's code read its text."""


class MissingCityError(NotFoundError):
    """A handler's own, more specific lookup failure."""


class BadDateError(InvalidInputError, ValueError):
    """An input error that is also a built-in ValueError (a mixin)."""


class LockedError(KeyError, PermissionDeniedError):
    """A permission failure whose first base is a built-in exception."""


class ProbeBug(Exception):
    """An unexpected failure of a handler, defined by the handler's author."""


def _unreadable(base: type[Exception]) -> Exception:
    """Return an instance of a subclass of `base` whose str() and repr() both raise."""

    def refuse(self: Exception) -> str:
        raise TextWasRead("this exception's text must never be read")

    methods = {"__str__": refuse, "__repr__": refuse}
    unreadable_class: type[Exception] = type(f"Unreadable{base.__name__}", (base,), methods)
    return unreadable_class(PRIVATE_MARKER)


def _code_problem(failure_code: StudentFunction, exc: Exception, expected: str) -> str | None:
    """Return None when failure_code(exc) is exactly `expected`, else a sentence saying why not."""
    label = f"{type(exc).__name__}({', '.join(show(arg) for arg in exc.args)})"
    try:
        code = failure_code(exc)
    except TextWasRead:
        return (
            f"failure_code({label}) called str() or repr() on the exception, and that raised. "
            "Decide the code from the exception's class alone (isinstance), never from its text."
        )
    if type(code) is not str or code != expected:
        leaked = isinstance(code, str) and PRIVATE_MARKER in code
        order = handler_order_hint(failure_code) if expected != TOOL_FAILED else None
        hint = f" {LEAK_HINT}" if leaked else (f"\n{order}" if order else "")
        return f"failure_code({label}) returned {show(code)}; expected {show(expected)}.{hint}"
    return None


def _first_problem(failure_code: StudentFunction, pairs: list[tuple[Exception, str]]) -> str | None:
    for exc, expected in pairs:
        problem = _code_problem(failure_code, exc, expected)
        if problem:
            return problem
    return None


def _cases(failure_code: StudentFunction) -> list[CheckCase]:
    def course_classes() -> str | None:
        return _first_problem(
            failure_code,
            [
                (InvalidInputError(PRIVATE_MARKER), INVALID_INPUT),
                (PermissionDeniedError(PRIVATE_MARKER), PERMISSION_DENIED),
                (NotFoundError(PRIVATE_MARKER), NOT_FOUND),
            ],
        )

    def look_alike_builtins() -> str | None:
        builtins = (KeyError, ValueError, PermissionError, LookupError, FileNotFoundError)
        return _first_problem(
            failure_code, [(cls(PRIVATE_MARKER), TOOL_FAILED) for cls in builtins]
        )

    def anything_else() -> str | None:
        others = (RuntimeError, ZeroDivisionError, TypeError, ProbeBug, Exception)
        return _first_problem(failure_code, [(cls(PRIVATE_MARKER), TOOL_FAILED) for cls in others])

    def subclasses_and_mixins() -> str | None:
        return _first_problem(
            failure_code,
            [
                (MissingCityError(PRIVATE_MARKER), NOT_FOUND),
                (BadDateError(PRIVATE_MARKER), INVALID_INPUT),
                (LockedError(PRIVATE_MARKER), PERMISSION_DENIED),
            ],
        )

    def text_does_not_decide() -> str | None:
        return _first_problem(
            failure_code,
            [
                (ValueError(INVALID_INPUT), TOOL_FAILED),
                (KeyError(NOT_FOUND), TOOL_FAILED),
                (InvalidInputError(PERMISSION_DENIED), INVALID_INPUT),
                (NotFoundError(), NOT_FOUND),
            ],
        )

    def unreadable_exceptions() -> str | None:
        return _first_problem(
            failure_code,
            [
                (_unreadable(InvalidInputError), INVALID_INPUT),
                (_unreadable(NotFoundError), NOT_FOUND),
                (_unreadable(RuntimeError), TOOL_FAILED),
            ],
        )

    return [
        CheckCase("The three course exceptions get their own codes", course_classes),
        CheckCase(
            "Built-in KeyError, ValueError and PermissionError are tool_failed", look_alike_builtins
        ),
        CheckCase("Any other exception is tool_failed", anything_else),
        CheckCase(
            "Subclasses and mixins of a course exception keep its code", subclasses_and_mixins
        ),
        CheckCase("The message never decides the code", text_does_not_decide),
        CheckCase(
            "An exception whose str() and repr() raise still gets its code", unreadable_exceptions
        ),
    ]


def check_failure_code(
    failure_code: StudentFunction, *, explain_name: Explainer | None = None
) -> CheckReport:
    """Check a student's `failure_code` case by case; return the CheckReport."""
    return run_checks("failure_code", _cases(failure_code), explain_name=explain_name)
