"""Step 2's explorer: pick an exception, see the student's code for it and whether text leaked."""

import html
from collections.abc import Callable

import ipywidgets as widgets

from course.carry.execute import Namespace
from course.checks.harness import StudentFunction, safe_text, show
from course.contract import INVALID_INPUT, NOT_FOUND, PERMISSION_DENIED, TOOL_FAILED
from course.supplied import InvalidInputError, NotFoundError, PermissionDeniedError
from course.tools import PRIVATE_MARKER, fixture_tools
from course.widgets import (
    LABEL_STYLE,
    CheckVerdicts,
    html_views,
    not_defined,
    not_finished,
    student_function,
)


class UnknownCityError(NotFoundError):
    """A handler's own lookup failure: a subclass of a course exception."""


class BadDateError(InvalidInputError, ValueError):
    """An input error that is also a built-in ValueError: a mixin."""


class UnprintableError(InvalidInputError):
    """An input error whose text cannot even be produced: str() and repr() raise."""

    def __str__(self) -> str:
        raise RuntimeError("this exception cannot describe itself")

    __repr__ = __str__


def _usage_stats_bug() -> KeyError:
    """Return the KeyError the usage_stats fixture tool raises: its message holds private text."""
    try:
        fixture_tools()["usage_stats"]({"user_id": "u-001"})
    except KeyError as exc:
        return exc
    raise AssertionError("usage_stats was expected to fail")


# Each example: a label for the dropdown, a function building a fresh exception, and the code
# the course expects. Building on demand keeps one pick from affecting the next.
EXAMPLES: tuple[tuple[str, Callable[[], Exception], str], ...] = (
    (
        "InvalidInputError: bad celsius",
        lambda: InvalidInputError("celsius 'warm'"),
        INVALID_INPUT,
    ),
    (
        "PermissionDeniedError: private document",
        lambda: PermissionDeniedError("u-002 may not read d-001"),
        PERMISSION_DENIED,
    ),
    ("NotFoundError: unknown user", lambda: NotFoundError("no user with id 'u-999'"), NOT_FOUND),
    (
        "UnknownCityError (a NotFoundError subclass)",
        lambda: UnknownCityError("no city 'Atlantis'"),
        NOT_FOUND,
    ),
    (
        "BadDateError (InvalidInputError + ValueError)",
        lambda: BadDateError("2024-02-30"),
        INVALID_INPUT,
    ),
    ("KeyError from usage_stats (private marker)", _usage_stats_bug, TOOL_FAILED),
    (
        "built-in PermissionError",
        lambda: PermissionError(f"[Errno 13] Permission denied: '/srv/{PRIVATE_MARKER}/keys'"),
        TOOL_FAILED,
    ),
    ("built-in ValueError", lambda: ValueError(f"bad row {PRIVATE_MARKER}"), TOOL_FAILED),
    ("ZeroDivisionError", lambda: ZeroDivisionError("division by zero"), TOOL_FAILED),
    ("an InvalidInputError whose str() raises", lambda: UnprintableError(), INVALID_INPUT),
)


def private_fragments(exc: BaseException) -> list[str]:
    """Return the pieces of an exception's text that must never reach an envelope."""
    pieces = [type(exc).__name__, PRIVATE_MARKER, safe_text(exc)]
    pieces.extend(safe_text(arg) for arg in exc.args)
    # Very short pieces (such as an empty message) would match almost any code by accident.
    return [piece for piece in dict.fromkeys(pieces) if len(piece) >= 4]


def leaked_fragments(code: object, exc: BaseException) -> list[str]:
    """Return the private pieces of `exc` that show up in the text of `code`."""
    text = safe_text(code)
    return [piece for piece in private_fragments(exc) if piece in text]


def _code_line(
    failure_code: StudentFunction | None, exc: Exception, expected: str
) -> tuple[object, str]:
    if failure_code is None:
        return None, not_defined("failure_code")
    try:
        code = failure_code(exc)
    except NotImplementedError:
        return None, not_finished("failure_code")
    except Exception as error:
        return None, (
            f"Your <code>failure_code</code> raised <code>{type(error).__name__}</code>: "
            f"{html.escape(safe_text(error))}. It must return a code for every exception, "
            "without reading the exception's text."
        )
    verdict = "✓ the course's code" if code == expected else f"✗ the course expects {expected!r}"
    shown = html.escape(show(code))
    return code, f"Your <code>failure_code</code> returns <code>{shown}</code> ({verdict})."


def _leak_line(code: object, exc: BaseException) -> str:
    leaks = leaked_fragments(code, exc)
    if not leaks:
        return "<span style='color:#1b5e20'>No text of the exception reached the code.</span>"
    shown = ", ".join(f"<code>{html.escape(piece)}</code>" for piece in leaks)
    return (
        "<span style='color:#b00020; font-weight:bold'>⚠ Leak: the code carries text of the "
        f"exception ({shown}). That text would reach the model.</span>"
    )


def _private_line(exc: BaseException) -> str:
    return (
        f"Stays private: type <code>{type(exc).__name__}</code>, message "
        f"<i>{html.escape(safe_text(exc))}</i>"
    )


def error_codes_explorer(namespace: Namespace) -> widgets.VBox:
    """Return a widget: choose an exception and see the student's code for it and any leak.

    `namespace` is the notebook's `globals()`, where `failure_code` is looked up at each pick.
    """
    pick = widgets.Dropdown(
        options=[(label, index) for index, (label, _, _) in enumerate(EXAMPLES)],
        value=0,
        description="Exception:",
        style=LABEL_STYLE,
        layout=widgets.Layout(width="max-content"),
    )
    pick.add_class("failure-pick")
    private, code_view, leak_view, check = html_views(
        "failure-private", "failure-code", "failure-leak", "failure-check"
    )
    verdicts = CheckVerdicts()

    def render(_change: object = None) -> None:
        failure_code = student_function(namespace, "failure_code")
        _, build, expected = EXAMPLES[pick.value]
        exc = build()
        private.value = _private_line(exc)
        code, sentence = _code_line(failure_code, exc, expected)
        code_view.value = sentence
        leak_view.value = "" if code is None else _leak_line(code, exc)
        check.value = verdicts.line("failure_code", failure_code)

    pick.observe(render, names="value")
    render()
    box = widgets.VBox([pick, private, code_view, leak_view, check])
    box.add_class("failure-explorer")
    return box
