"""The checks' oracle: what an envelope must look like, and what of an exception must never show.

Shared by the checks and the explorers, so an explorer judges an envelope exactly as the check
would.
"""

import ast
import inspect
import json
import textwrap
from typing import Any

from course.checks.harness import safe_text, show
from course.checks.ownership import exact_type_problem
from course.contract import (
    ENVELOPE_KEYS,
    INVALID_INPUT,
    INVALID_RESULT,
    NOT_FOUND,
    PERMISSION_DENIED,
    RESULT_TOO_LARGE,
    TOOL_FAILED,
    UNKNOWN_TOOL,
)
from course.supplied import (
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
    check_json_value,
)
from course.tools import PRIVATE_MARKER, Arguments, fixture_tools


def envelope_problem(
    envelope: object, request_id: object, *, value: object = None, error: str | None = None
) -> str | None:
    """Return a sentence if `envelope` is not exactly the expected one, else None."""
    if not isinstance(envelope, dict):
        return f"`invoke_tool` should return a dict envelope, but it returned {show(envelope)}."
    if set(envelope) != set(ENVELOPE_KEYS):
        return (
            f"The envelope should have exactly the keys id, ok, value and error: {show(envelope)}."
        )
    if envelope["id"] != request_id or type(envelope["id"]) is not type(request_id):
        return f"The request id was {request_id!r} but the envelope says {show(envelope['id'])}."
    expected_ok = error is None
    if envelope["ok"] is not expected_ok:
        return f"I expected ok to be {expected_ok} but the envelope is {show(envelope)}."
    if envelope["error"] != error:
        return f"I expected error {error!r} but the envelope is {show(envelope)}."
    if error is not None:
        return (
            None
            if envelope["value"] is None
            else f"On failure value must be None: {show(envelope)}."
        )
    return exact_type_problem(value, envelope["value"], "the envelope's value")


def raised_by(tool: str, arguments: Arguments) -> Exception | None:
    """Return the exception a fixture tool raises for `arguments`, or None if it returns."""
    try:
        fixture_tools()[tool](dict(arguments))  # fixture handlers never edit it
    except Exception as exc:
        return exc
    return None


def private_texts(exc: BaseException | None) -> list[str]:
    """Return the texts of an exception that must never reach an envelope (none for None)."""
    if exc is None:
        return []
    texts = [PRIVATE_MARKER, type(exc).__name__, safe_text(exc)]
    texts += [safe_text(argument) for argument in exc.args]
    texts = [text.strip("'\"") for text in texts]
    # Very short texts (an empty message) would match an honest envelope by accident.
    return [text for text in dict.fromkeys(texts) if len(text) >= 4]


# The classification step 2 teaches: the code of an exception, by its class alone.
EXPECTED_CODES = (
    (InvalidInputError, INVALID_INPUT),
    (PermissionDeniedError, PERMISSION_DENIED),
    (NotFoundError, NOT_FOUND),
)


def code_for(exc: BaseException) -> str:
    """Return the failure code CONTRACT.md gives an exception a handler raised."""
    return next((code for cls, code in EXPECTED_CODES if isinstance(exc, cls)), TOOL_FAILED)


def fixture_outcome(tool: str, arguments: Arguments, budget: int) -> tuple[Any, str | None]:
    """Return (value, code) that a fixture tool's call must end in: one of them is None.

    It runs the fixture's handler itself, on a copy of the arguments, so the playground can
    judge any request a student sends with the rules the check uses.
    """
    handler = fixture_tools().get(tool)
    if handler is None:
        return None, UNKNOWN_TOOL
    exc = raised_by(tool, arguments)
    if exc is not None:
        return None, code_for(exc)
    value = handler(dict(arguments))
    try:
        check_json_value(value)
        size = len(json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8"))
    except (TypeError, ValueError, RecursionError):
        return None, INVALID_RESULT
    if size > budget:
        return None, RESULT_TOO_LARGE
    return json.loads(json.dumps(value)), None


BROAD = frozenset({"Exception", "BaseException"})


def handler_order_hint(function: object) -> str | None:
    """Say when `function` catches Exception before a course class it also catches, or None.

    Python runs the first `except` clause that matches, and every course exception is an
    Exception, so a clause for NotFoundError placed after `except Exception` never runs.
    """
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))  # type: ignore[arg-type]
    except (OSError, TypeError, SyntaxError, ValueError):
        return None
    course_classes = {cls.__name__ for cls, _code in EXPECTED_CODES}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try | ast.TryStar):
            continue
        broad = None
        for handler in node.handlers:
            names = _caught_names(handler.type)
            if broad is not None and names & course_classes:
                later = sorted(names & course_classes)[0]
                name = getattr(function, "__name__", "your function")
                clause = f"except {broad}".rstrip()
                article = "an" if later[0] in "AEIOU" else "a"
                return (
                    f"In `{name}`, `{clause}:` comes before `except {later}:`. Python runs the "
                    f"first clause that matches, and `{clause}:` matches {article} {later} too, "
                    "so its own clause never runs. Put the course's classes first, or let "
                    "`failure_code` (step 2) choose the code."
                )
            if broad is None and (handler.type is None or names & BROAD):
                broad = min(names & BROAD) if handler.type is not None else ""
    return None


def _caught_names(node: ast.expr | None) -> set[str]:
    """Return the class names an `except` clause names (a bare name, a.b, or a tuple of them)."""
    if node is None:
        return set()
    if isinstance(node, ast.Tuple):
        return {name for element in node.elts for name in _caught_names(element)}
    if isinstance(node, ast.Attribute):
        return {node.attr}
    return {node.id} if isinstance(node, ast.Name) else set()
