"""Step 3's explorer: what json.dumps does to a value, the vocabulary's verdict, and encode_json."""

import enum
import html
import json

import ipywidgets as widgets

from course.feedback import safe_text, show
from course.supplied import check_json_value


class Priority(enum.IntEnum):
    """An IntEnum: json.dumps writes its members as plain numbers."""

    HIGH = 1


def _cycle():
    items = ["again"]
    items.append(items)
    return items


def _shared():
    tags = ["mentor", "早起き"]
    return {"tags": tags, "same_tags": tags}


# Each example: a dropdown label and a function that builds a fresh value on demand, so a pick
# never sees a value an earlier pick (or the student's code) changed.
EXAMPLES = (
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


def dumps_default(value):
    """Return what json.dumps makes of `value` with default options, or the error it raises."""
    try:
        return f"<code>{html.escape(json.dumps(value))}</code>"
    except (TypeError, ValueError) as error:
        return f"raises <code>{type(error).__name__}</code>: {html.escape(safe_text(error))}"


def vocabulary_verdict(value):
    """Return the supplied checker's verdict on `value`, as one sentence."""
    try:
        check_json_value(value)
    except (TypeError, ValueError) as error:
        return f"✗ outside: <code>{type(error).__name__}</code>: {html.escape(safe_text(error))}"
    return "✓ in the vocabulary"


def student_encoding(encode_json, value):
    """Return what the student's encode_json makes of `value`, as one sentence; never raise."""
    try:
        text = encode_json(value)
    except NotImplementedError:
        return (
            "Your <code>encode_json</code> is not finished yet. Finish its exercise cell, run "
            "it, then run this cell again."
        )
    except (TypeError, ValueError) as error:
        return f"refuses it with <code>{type(error).__name__}</code>"
    except Exception as error:
        return (
            f"raised <code>{type(error).__name__}</code> ({html.escape(safe_text(error))}); "
            "it should return JSON text or raise TypeError or ValueError."
        )
    return f"returns <code>{html.escape(show(text))}</code>"


def vocabulary_explorer(encode_json):
    """Return a widget: pick a Python value, compare json.dumps, the vocabulary and encode_json."""
    pick = widgets.Dropdown(
        options=[(label, index) for index, (label, _) in enumerate(EXAMPLES)],
        value=0,
        description="Value:",
        layout=widgets.Layout(width="max-content"),
    )
    pick.add_class("vocabulary-pick")
    value_view = widgets.HTML()
    value_view.add_class("vocabulary-value")
    dumps_view = widgets.HTML()
    dumps_view.add_class("vocabulary-dumps")
    check_view = widgets.HTML()
    check_view.add_class("vocabulary-check")
    encode_view = widgets.HTML()
    encode_view.add_class("vocabulary-encode")

    def render(_change=None):
        build = EXAMPLES[pick.value][1]
        value_view.value = f"<b>Python value:</b> <code>{html.escape(show(build()))}</code>"
        dumps_view.value = f"<b>json.dumps(value):</b> {dumps_default(build())}"
        check_view.value = f"<b>check_json_value(value):</b> {vocabulary_verdict(build())}"
        encode_view.value = (
            f"<b>your encode_json(value):</b> {student_encoding(encode_json, build())}"
        )

    pick.observe(render, names="value")
    render()
    box = widgets.VBox([pick, value_view, dumps_view, check_view, encode_view])
    box.add_class("vocabulary-explorer")
    return box
