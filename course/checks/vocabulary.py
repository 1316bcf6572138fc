"""Visible check for step 3: `encode_json` writes vocabulary values and refuses everything else."""

import enum
import json
from collections.abc import Iterable
from typing import Any

from course.checks.harness import (
    IN_BROWSER,
    CheckCase,
    CheckReport,
    Explainer,
    StudentFunction,
    run_checks,
    show,
)
from course.contract import falsy_values

ASCII_HINT = "Non-ASCII characters came out as \\u escapes: pass ensure_ascii=False."
BYTES_HINT = "Return the text (a str); the byte budget of step 4 encodes it."
SPACES_HINT = (
    "The two texts differ only in spaces: the JSON text is json.dumps's, with its default "
    'separators ", " and ": ", which the byte budget of step 4 counts. Leave out separators=.'
)
TOO_DEEP = 100_000  # levels of nesting: more than Python's recursion, or json.dumps, can walk


class Priority(enum.IntEnum):
    """An int subclass: json.dumps writes it as a number, but it is outside the vocabulary."""

    HIGH = 1


class Label(str):
    """A str subclass: it looks like a string, but its type is not exactly str."""


def _expected_text(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _nested(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = [value]
    return value


def _cycle() -> list[Any]:
    items: list[Any] = ["loop"]
    items.append(items)
    return items


def _text_problem(encode_json: StudentFunction, value: object) -> str | None:
    """Return None when encode_json(value) is the expected JSON text, else a sentence saying why."""
    expected = _expected_text(value)
    try:
        text = encode_json(value)
    except (TypeError, ValueError) as error:
        return (
            f"encode_json({show(value)}) raised {type(error).__name__}, but that value is in "
            "the vocabulary and should be encoded."
        )
    if text == expected:
        return None
    hint = ""
    if isinstance(text, str) and "\\u" in text and "\\u" not in expected:
        hint = f"\n{ASCII_HINT}"
    elif isinstance(text, bytes):
        hint = f"\n{BYTES_HINT}"
    elif isinstance(text, str) and _spaceless(text) == _spaceless(expected):
        hint = f"\n{SPACES_HINT}"
    return f"encode_json({show(value)}) returned {show(text)}; expected {show(expected)}.{hint}"


def _spaceless(text: str) -> str:
    return "".join(text.split())


def _refusal_problem(encode_json: StudentFunction, value: object, why: str) -> str | None:
    """Return None when encode_json(value) raises TypeError or ValueError, else a sentence."""
    try:
        text = encode_json(value)
    except (TypeError, ValueError):
        return None
    return (
        f"encode_json({show(value)}) returned {show(text)} instead of raising TypeError or "
        f"ValueError. {why}"
    )


def _first(problems: Iterable[str | None]) -> str | None:
    return next((problem for problem in problems if problem), None)


def _cases(encode_json: StudentFunction) -> list[CheckCase]:
    def plain_values() -> str | None:
        values = (
            {"name": "José", "age": 41, "admin": True, "score": 9.5, "manager": None},
            ["a", 1, 2.0, False, None, [], {}],
            -3,
        )
        return _first(_text_problem(encode_json, value) for value in values)

    def falsy_ones() -> str | None:
        return _first(_text_problem(encode_json, v) for v in falsy_values())

    def non_ascii_as_itself() -> str | None:
        values = ("東京", {"city": "Kraków", "mood": "🚀"}, 'tab\there, quote" there')
        return _first(_text_problem(encode_json, value) for value in values)

    def deep_and_shared() -> str | None:
        shared = [1, 2]
        return _first(
            _text_problem(encode_json, v) for v in (_nested(50), {"a": shared, "b": shared})
        )

    def tuples_sets_bytes() -> str | None:
        why = "json.dumps would quietly turn a tuple into a list; the vocabulary has no tuple."
        values = ((1, 2), {"tags": {"café"}}, b"bytes", [object()])
        return _first(_refusal_problem(encode_json, value, why) for value in values)

    def not_finite() -> str | None:
        why = "NaN and infinities are not JSON numbers; pass allow_nan=False or check first."
        values = (float("nan"), [float("inf")], {"x": float("-inf")})
        return _first(_refusal_problem(encode_json, value, why) for value in values)

    def string_keys_only() -> str | None:
        why = "json.dumps would turn this key into a string, so the value would not come back."
        values = ({1: "one"}, {True: "yes"}, {"ok": {None: 0}})
        return _first(_refusal_problem(encode_json, value, why) for value in values)

    def exact_types_and_no_cycles() -> str | None:
        why = "Only exact built-in types are in the vocabulary, and a cycle has no JSON form."
        values = (Priority.HIGH, [Label("tag")], _cycle())
        return _first(_refusal_problem(encode_json, value, why) for value in values)

    def far_too_deep() -> str | None:
        value = _nested(TOO_DEEP)
        try:
            text = encode_json(value)
        except (TypeError, ValueError, RecursionError):
            return None
        return (
            f"encode_json of a list nested {TOO_DEEP} levels deep returned {show(text)}; let "
            "the RecursionError through (or raise TypeError or ValueError): step 7 turns it "
            "into invalid_result."
        )

    return [
        CheckCase("Vocabulary values become the exact JSON text", plain_values),
        CheckCase("None, False, 0, '', [] and {} are encoded like any value", falsy_ones),
        CheckCase("Non-ASCII text stays as itself (ensure_ascii=False)", non_ascii_as_itself),
        CheckCase("Deep nesting and a list used twice are fine", deep_and_shared),
        CheckCase("Tuples, sets, bytes and other objects are refused", tuples_sets_bytes),
        CheckCase("NaN and infinities are refused", not_finite),
        CheckCase("Dict keys that are not str are refused", string_keys_only),
        CheckCase(
            "IntEnum members, str subclasses and cycles are refused", exact_types_and_no_cycles
        ),
        *(
            []
            if IN_BROWSER
            else [
                CheckCase(
                    "A value nested too deep for JSON is refused, never written", far_too_deep
                )
            ]
        ),
    ]


def check_encode_json(
    encode_json: StudentFunction, *, explain_name: Explainer | None = None
) -> CheckReport:
    """Check a student's `encode_json` case by case; return the CheckReport."""
    return run_checks("encode_json", _cases(encode_json), explain_name=explain_name)
