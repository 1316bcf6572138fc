"""Step 3's explorer: what json.dumps does to a value, the vocabulary's verdict, and encode_json.

The student picks an example or types a value of their own (a Python literal, read with
`ast.literal_eval`, which evaluates no code), and sees a verdict on what their `encode_json`
made of it: the exact JSON text for a value in the vocabulary, a TypeError or ValueError for one
outside.
"""

import ast
import enum
import html
import json
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from course.carry.execute import Namespace
from course.checks.harness import StudentFunction, safe_text, show
from course.supplied import check_json_value
from course.widgets import (
    LABEL_STYLE,
    CheckVerdicts,
    not_defined,
    not_finished,
    save_note,
    student_function,
)

OWN_VALUE = -1  # the dropdown's choice for the value typed in the text box


class Priority(enum.IntEnum):
    """An IntEnum: json.dumps writes its members as plain numbers."""

    HIGH = 1


def _cycle() -> list[Any]:
    items: list[Any] = ["again"]
    items.append(items)
    return items


def _shared() -> dict[str, list[str]]:
    tags = ["mentor", "早起き"]
    return {"tags": tags, "same_tags": tags}


# Each example: a dropdown label and a function that builds a fresh value on demand, so a pick
# never sees a value an earlier pick (or the student's code) changed.
EXAMPLES: tuple[tuple[str, Callable[[], object]], ...] = (
    (
        "nested record (ok)",
        lambda: {
            "name": "山田 花子",
            "tags": ["mentor"],
            "admin": True,
            "score": 9.5,
            "boss": None,
        },
    ),
    ("falsy values (ok)", lambda: [None, False, 0, "", [], {}]),
    ("a list used twice (ok)", _shared),
    ("tuple (1, 2, 3)", lambda: (1, 2, 3)),
    ("set of tags", lambda: {"café"}),
    ("NaN", lambda: float("nan")),
    ("infinity inside a list", lambda: [1.5, float("inf")]),
    ("dict with int keys", lambda: {1: "one", 2: "two"}),
    ("dict with the key True", lambda: {True: "yes"}),
    ("IntEnum member", lambda: Priority.HIGH),
    ("bytes", lambda: b"\xe6\x9d\xb1"),
    ("a list that contains itself", _cycle),
)


def dumps_default(value: object) -> str:
    """Return what json.dumps makes of `value` with default options, or the error it raises."""
    try:
        return f"<code>{html.escape(json.dumps(value))}</code>"
    except (TypeError, ValueError) as error:
        return f"raises <code>{type(error).__name__}</code>: {html.escape(safe_text(error))}"


def vocabulary_verdict(value: object) -> str:
    """Return the supplied checker's verdict on `value`, as one sentence."""
    try:
        check_json_value(value)
    except (TypeError, ValueError) as error:
        return f"✗ outside: <code>{type(error).__name__}</code>: {html.escape(safe_text(error))}"
    return "✓ in the vocabulary"


def student_encoding(encode_json: StudentFunction | None, value: object) -> str:
    """Return what the student's encode_json makes of `value`, as one sentence; never raise."""
    if encode_json is None:
        return not_defined("encode_json")
    try:
        text = encode_json(value)
    except NotImplementedError:
        return not_finished("encode_json")
    except (TypeError, ValueError) as error:
        return f"refuses it with <code>{type(error).__name__}</code>"
    except Exception as error:
        return (
            f"raised <code>{type(error).__name__}</code> ({html.escape(safe_text(error))}); "
            "it should return JSON text or raise TypeError or ValueError."
        )
    return f"returns <code>{html.escape(show(text))}</code>"


def encoding_verdict(encode_json: StudentFunction | None, value: object) -> str:
    """Say whether the student's encode_json did what the vocabulary asks for `value`."""
    if encode_json is None:
        return ""
    try:
        check_json_value(value)
        expected = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        expected = None
    try:
        text = encode_json(value)
    except (TypeError, ValueError):
        if expected is None:
            return "✓ Right: the value is outside the vocabulary, and your encode_json refuses it."
        return "✗ The value is in the vocabulary, so encode_json should encode it, not refuse it."
    except Exception:
        return "✗ encode_json should return JSON text or raise TypeError or ValueError."
    if expected is None:
        return (
            "✗ The value is outside the vocabulary, yet your encode_json returned text for it: "
            "it should raise TypeError or ValueError."
        )
    if text != expected:
        return f"✗ Expected exactly <code>{html.escape(show(expected))}</code>."
    return "✓ Right: the exact JSON text, with the characters as themselves."


def parse_own_value(text: str) -> tuple[Any, str | None]:
    """Return (value, None) for a Python literal, or (None, a sentence saying what is wrong)."""
    try:
        return ast.literal_eval(text), None
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None, (
            "That is not a Python literal. Try values such as <code>(1, 2)</code>, "
            "<code>{'a': {1, 2}}</code>, <code>[True, None, 1.5]</code> or <code>b'hi'</code>."
        )


def vocabulary_explorer(namespace: Namespace) -> widgets.VBox:
    """Return a widget: pick or type a value; compare json.dumps, the vocabulary and encode_json.

    `namespace` is the notebook's `globals()`, where `encode_json` is looked up at each pick.
    """
    options = [(label, index) for index, (label, _) in enumerate(EXAMPLES)]
    pick = widgets.Dropdown(
        options=[*options, ("a value of your own (type it below)", OWN_VALUE)],
        value=0,
        description="Value:",
        style=LABEL_STYLE,
        layout=widgets.Layout(width="max-content"),
    )
    pick.add_class("vocabulary-pick")
    own = widgets.Text(
        value="(1, 'two', {3})",
        description="Your own value (a Python literal):",
        style=LABEL_STYLE,
        layout=widgets.Layout(width="36rem"),
    )
    own.add_class("vocabulary-own")
    names = ("value", "dumps", "check", "encode", "verdict", "step-check")
    views = {name: widgets.HTML() for name in names}
    for name, view in views.items():
        view.add_class(f"vocabulary-{name}")
    verdicts = CheckVerdicts()

    def typed_value() -> Any:
        return parse_own_value(own.value)[0]  # a fresh value at each call

    def render(_change: object = None) -> None:
        encode_json = student_function(namespace, "encode_json")
        views["step-check"].value = verdicts.line("encode_json", encode_json)
        build = EXAMPLES[pick.value][1] if pick.value != OWN_VALUE else typed_value
        if pick.value == OWN_VALUE and parse_own_value(own.value)[1]:
            for name in ("value", "dumps", "check", "encode"):
                views[name].value = ""
            views["verdict"].value = parse_own_value(own.value)[1]
            return
        views["value"].value = f"<b>Python value:</b> <code>{html.escape(show(build()))}</code>"
        views["dumps"].value = f"<b>json.dumps(value):</b> {dumps_default(build())}"
        views["check"].value = f"<b>check_json_value(value):</b> {vocabulary_verdict(build())}"
        encoding = student_encoding(encode_json, build())
        views["encode"].value = f"<b>your encode_json(value):</b> {encoding}"
        views["verdict"].value = encoding_verdict(encode_json, build())

    pick.observe(render, names="value")
    own.observe(render, names="value")
    render()
    box = widgets.VBox([pick, own, save_note(), *views.values()])
    box.add_class("vocabulary-explorer")
    return box
