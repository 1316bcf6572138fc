"""Step 4's byte-budget explorer: type text, move the budget, watch bytes and the verdict.

A browser test drives this widget by its CSS classes (budget-explorer, budget-text,
budget-bytes, budget-json, budget-chars, budget-size, budget-verdict, budget-check), so keep
them stable.
"""

import html
import json

import ipywidgets as widgets

from course.carry.execute import Namespace
from course.checks.harness import StudentFunction, safe_text, show
from course.contract import INVALID_RESULT, RESULT_TOO_LARGE
from course.widgets import LABEL_STYLE, CheckVerdicts, save_note, student_function

MAX_ROWS = 80  # the character table stops here, so a long paste stays readable
BUDGET_MAX = 64  # the budget box's first reach; it grows to twice the size of the text typed


def reference_json(text: str) -> str:
    """Return the JSON text the contract measures for the string `text`."""
    return json.dumps(text, ensure_ascii=False, allow_nan=False)


def json_text_for(encode_json: StudentFunction | None, text: str) -> tuple[str, str]:
    """Return (JSON text, note): the student's encode_json output, or json.dumps with a note."""
    expected = reference_json(text)
    fallback = "so this uses json.dumps(text, ensure_ascii=False, allow_nan=False)."
    if encode_json is None:
        return expected, f"Your encode_json is not defined in this kernel (step 3), {fallback}"
    try:
        encoded = encode_json(text)
    except NotImplementedError:
        return expected, f"Your encode_json is not finished yet (step 3), {fallback}"
    except Exception as error:
        return expected, f"Your encode_json raised {type(error).__name__}, {fallback}"
    if not isinstance(encoded, str):
        return expected, f"Your encode_json returned {show(encoded)}, not text, {fallback}"
    if encoded != expected:
        return encoded, f"Note: json.dumps(text, ensure_ascii=False) would give {show(expected)}."
    return encoded, ""


def utf8_size(json_text: str) -> int | None:
    """Return the UTF-8 size of `json_text`, or None when it cannot be encoded."""
    try:
        return len(json_text.encode("utf-8"))
    except UnicodeEncodeError:
        return None


def printable(text: str) -> str:
    """Return `text` with lone surrogates written as \\uXXXX, so the page can carry it.

    A widget's value travels to the browser as UTF-8 JSON, which a lone surrogate would break.
    """
    return "".join(f"\\u{ord(c):04x}" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)


def _visible(char: str) -> str:
    if char == " ":
        return "␠"
    if ord(char) < 32 or 0xD800 <= ord(char) <= 0xDFFF:
        return f"U+{ord(char):04X}"
    return char


def character_table(json_text: str) -> str:
    """Return an HTML table of each character of `json_text` and its UTF-8 byte cost."""
    rows = []
    for char in json_text[:MAX_ROWS]:
        try:
            encoded = char.encode("utf-8")
            cost, shown_bytes = str(len(encoded)), encoded.hex(" ")
        except UnicodeEncodeError:
            cost, shown_bytes = "—", "cannot be encoded"
        rows.append(
            f"<tr><td><code>{html.escape(_visible(char))}</code></td>"
            f"<td>U+{ord(char):04X}</td><td>{cost}</td><td><code>{shown_bytes}</code></td></tr>"
        )
    more = len(json_text) - MAX_ROWS
    if more > 0:
        rows.append(f"<tr><td colspan='4'>… and {more} more characters</td></tr>")
    head = "<tr><th>character</th><th>code point</th><th>bytes</th><th>UTF-8</th></tr>"
    return f"<table>{head}{''.join(rows)}</table>"


def size_line(size: int | None, budget: int) -> str:
    """Return e.g. "8 bytes (budget 8)"; the size always comes first."""
    if size is None:
        return f"no size: this text cannot be encoded as UTF-8 (budget {budget})"
    return f"{size} bytes (budget {budget})"


def verdict_line(
    budget_error: StudentFunction | None, json_text: str, budget: int, size: int | None
) -> str:
    """Return the student's verdict in words; never raise."""
    if budget_error is None:
        return "Your budget_error is not defined in this kernel: run its exercise cell."
    try:
        verdict = budget_error(json_text, budget)
    except NotImplementedError:
        return "Your budget_error is not finished yet. Finish its exercise cell and run it."
    except Exception as error:
        return f"Your budget_error raised {type(error).__name__}: {safe_text(error)}"
    measured = "this text" if size is None else f"{size} bytes"
    known = {None, RESULT_TOO_LARGE, INVALID_RESULT}
    if verdict not in known or type(verdict) not in (type(None), str):
        return f"Your budget_error returned {show(verdict)}, which is not a verdict of this step."
    expected = contract_verdict(size, budget)
    if verdict != expected:
        return mismatch_line(verdict, expected, measured, budget)
    if verdict is None:
        return f"✓ fits: {measured} within a budget of {budget}"
    if verdict == RESULT_TOO_LARGE:
        return f"✗ result_too_large: {measured}, over the budget of {budget}"
    return "✗ invalid_result: a lone surrogate cannot be encoded as UTF-8"


def contract_verdict(size: int | None, budget: int) -> str | None:
    """Return what budget_error must answer for a text of `size` UTF-8 bytes (None: unencodable)."""
    if size is None:
        return INVALID_RESULT
    return RESULT_TOO_LARGE if size > budget else None


def mismatch_line(verdict: str | None, expected: str | None, measured: str, budget: int) -> str:
    """Say, without praise, that the student's verdict is not the contract's."""
    said = "it fits" if verdict is None else verdict
    right = {
        None: f"{measured} fits a budget of {budget} (a size equal to the budget fits)",
        RESULT_TOO_LARGE: f"{measured} is more than the budget of {budget}",
        INVALID_RESULT: "this text cannot be encoded as UTF-8 at all",
    }[expected]
    return (
        f"⚠ Your budget_error says {said}, but {right}. Count the UTF-8 bytes of the whole "
        "JSON text, quotes included."
    )


def _html(css_class: str) -> widgets.HTML:
    view = widgets.HTML()
    view.add_class(css_class)
    return view


def unicode_boundary_explorer(namespace: Namespace) -> widgets.VBox:
    """Return the byte-budget explorer on the student's encode_json and budget_error.

    `namespace` is the notebook's `globals()`: both functions are looked up at every change.
    """
    text = widgets.Text(
        value="東京", description="Text:", continuous_update=True, style=LABEL_STYLE
    )
    text.add_class("budget-text")
    # A number box, not a slider: ipywidgets gives a slider's handle no accessible name, so a
    # screen reader announced it as an unnamed slider (axe-core: aria-input-field-name).
    budget_box = widgets.BoundedIntText(
        value=8,
        min=0,
        max=BUDGET_MAX,
        step=1,
        description="Budget (bytes):",
        continuous_update=True,
        style=LABEL_STYLE,
        layout=widgets.Layout(width="20rem"),
    )
    budget_box.add_class("budget-bytes")
    json_view, chars, size_view, verdict, check, note = (
        _html(name)
        for name in (
            "budget-json",
            "budget-chars",
            "budget-size",
            "budget-verdict",
            "budget-check",
            "budget-note",
        )
    )
    verdicts = CheckVerdicts()

    def render(_change: object = None) -> None:
        encode_json = student_function(namespace, "encode_json")
        budget_error = student_function(namespace, "budget_error")
        json_text, note_text = json_text_for(encode_json, text.value)
        size = utf8_size(json_text)
        # Grow the box's reach with the text, so any size typed can be set as the budget.
        budget_box.max = max(budget_box.max, 2 * (size or 0))
        json_view.value = f"JSON text: <code>{html.escape(printable(json_text))}</code>"
        chars.value = character_table(json_text)
        size_view.value = html.escape(size_line(size, budget_box.value))
        line = verdict_line(budget_error, json_text, budget_box.value, size)
        verdict.value = html.escape(printable(line))
        check.value = verdicts.line("budget_error", budget_error)
        note.value = f"<small>{html.escape(printable(note_text))}</small>" if note_text else ""

    text.observe(render, names="value")
    budget_box.observe(render, names="value")
    render()
    box = widgets.VBox(
        [text, save_note(), budget_box, json_view, size_view, verdict, check, note, chars]
    )
    box.add_class("budget-explorer")
    return box
