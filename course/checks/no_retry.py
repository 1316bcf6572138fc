"""Visible checks for step 6: `call_once` calls a handler exactly once and never retries.

Each case wraps its handler in the course's `CallCounter`, so a retry shows up as a count above
one. Only `Exception` may be caught: the cases send `KeyboardInterrupt` and `SystemExit` through
and expect the very same object back out.
"""

from typing import Any

from course.checks.harness import (
    CheckCase,
    CheckReport,
    Explainer,
    StudentFunction,
    run_checks,
    safe_text,
    show,
)
from course.contract import falsy_values
from course.supplied import NotFoundError
from course.tools import Arguments, CallCounter, Handler


class FlakyHandler:
    """A handler that fails on its first call and succeeds after: a retry would hide the failure."""

    def __init__(self, error: Exception | None = None) -> None:
        self.error = error or TimeoutError("the service did not answer in time")
        self.calls = 0

    def __call__(self, arguments: Arguments) -> dict[str, bool]:
        self.calls += 1
        if self.calls == 1:
            raise self.error
        return {"sent": True}


def raising(error: BaseException) -> Handler:
    """Return a handler that raises `error`, the very object, each time it is called."""

    def handler(arguments: Arguments) -> Any:
        raise error

    return handler


def returning(value: object) -> Handler:
    """Return a handler that returns `value`, the very object, each time it is called."""

    def handler(arguments: Arguments) -> object:
        return value

    return handler


def _pair_problem(outcome: object) -> str | None:
    """Return a sentence if `outcome` is not a pair (ok, result) with ok a real bool."""
    if not isinstance(outcome, tuple | list) or len(outcome) != 2:
        return f"`call_once` should return a pair (ok, result), but it returned {show(outcome)}."
    if type(outcome[0]) is not bool:
        return (
            f"The first item of the pair should be True or False, but it is {show(outcome[0])} "
            f"(a {type(outcome[0]).__name__})."
        )
    return None


def _calls_problem(counter: CallCounter, expected: int = 1) -> str | None:
    if counter.calls != expected:
        return f"The handler was called {counter.calls} times; it should be called exactly once."
    return None


def _success(call_once: StudentFunction) -> str | None:
    received = []

    def handler(arguments: Arguments) -> dict[str, str]:
        received.append(arguments)
        return {"user": "u-001"}

    counter = CallCounter(handler)
    arguments = {"user_id": "u-001"}
    outcome = call_once(counter, arguments)
    problem = _pair_problem(outcome) or _calls_problem(counter)
    if problem:
        return problem
    if received != [{"user_id": "u-001"}]:
        return f"The handler should receive the arguments dict; it received {show(received)}."
    if tuple(outcome) != (True, {"user": "u-001"}):
        return f"I expected (True, {{'user': 'u-001'}}) but got {show(outcome)}."
    return None


def _falsy_success(call_once: StudentFunction) -> str | None:
    for value in falsy_values():
        counter = CallCounter(returning(value))
        outcome = call_once(counter, {})
        problem = _pair_problem(outcome) or _calls_problem(counter)
        if problem:
            return problem
        if outcome[0] is not True or outcome[1] != value or type(outcome[1]) is not type(value):
            return (
                f"A handler that returned {show(value)} has succeeded, so I expected "
                f"(True, {show(value)}) but got {show(outcome)}."
            )
    return None


def _failure_returns_exception(
    call_once: StudentFunction, error: Exception, kind: str
) -> str | None:
    counter = CallCounter(raising(error))
    outcome = call_once(counter, {"user_id": "u-999"})
    problem = _pair_problem(outcome) or _calls_problem(counter)
    if problem:
        return problem
    if outcome[0] is not False:
        return f"The handler raised {kind}, so the first item should be False, not {outcome[0]}."
    if outcome[1] is not error:
        return (
            f"The second item should be the very exception the handler raised, but it is "
            f"{show(outcome[1])}.\nReturn the exception object itself (`except Exception as "
            "exc`), not its text: the next step turns it into a code."
        )
    return None


def _flaky_not_retried(call_once: StudentFunction) -> str | None:
    handler = FlakyHandler()
    outcome = call_once(handler, {"to": "ana@example.com"})
    if handler.calls != 1:
        return (
            f"A handler that fails the first time was called {handler.calls} times in one "
            "call_once. A retry could send the email twice: call it once and report the failure."
        )
    problem = _pair_problem(outcome)
    if problem:
        return problem
    if outcome[0] is not False or outcome[1] is not handler.error:
        return f"The first call failed, so I expected (False, <its TimeoutError>): {show(outcome)}."
    return None


def _base_exceptions_propagate(call_once: StudentFunction) -> str | None:
    for error in (KeyboardInterrupt(), SystemExit(3)):
        counter = CallCounter(raising(error))
        try:
            outcome = call_once(counter, {})
        except BaseException as escaped:
            if escaped is not error and isinstance(escaped, Exception):
                raise  # the student's own exception: run_checks explains it
            if escaped is not error:
                return (
                    f"{type(error).__name__} should come out unchanged, but "
                    f"{type(escaped).__name__}: {safe_text(escaped)} came out instead."
                )
        else:
            return (
                f"`call_once` caught {type(error).__name__} and returned {show(outcome)}.\n"
                "Catch `Exception` only: Ctrl-C and exit requests must reach the caller."
            )
        problem = _calls_problem(counter)
        if problem:
            return problem
    return None


def cases(call_once: StudentFunction) -> list[CheckCase]:
    """The cases for `call_once`."""
    return [
        CheckCase(
            "A handler that succeeds gives (True, result) after one call",
            lambda: _success(call_once),
        ),
        CheckCase(
            'A handler returning None, False, 0, "", [] or {} has succeeded',
            lambda: _falsy_success(call_once),
        ),
        CheckCase(
            "NotFoundError gives (False, that exception) after one call",
            lambda: _failure_returns_exception(
                call_once, NotFoundError("no user u-999"), "NotFoundError"
            ),
        ),
        CheckCase(
            "A bug (KeyError) gives (False, that exception) after one call",
            lambda: _failure_returns_exception(call_once, KeyError("u-999"), "KeyError"),
        ),
        CheckCase(
            "A handler that fails only the first time is still not retried",
            lambda: _flaky_not_retried(call_once),
        ),
        CheckCase(
            "KeyboardInterrupt and SystemExit pass through unchanged",
            lambda: _base_exceptions_propagate(call_once),
        ),
    ]


def check_call_once(
    call_once: StudentFunction, *, explain_name: Explainer | None = None
) -> CheckReport:
    """Check the student's `call_once` case by case; return the CheckReport."""
    return run_checks("call_once", cases(call_once), explain_name=explain_name)
