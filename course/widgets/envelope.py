"""Step 1's stepper: one request walked to its envelope, for a success and for a failure.

The stages are "start" (the request), "1" (the handler runs or raises), "2" (the outcome is
classified) and "3" (the student's `make_envelope` builds the envelope). Every stage shows the
request id, so a student sees it carried through, whichever way the call goes.
"""

import html
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets

from course.carry.execute import Namespace
from course.checks.envelope import envelope_mismatch
from course.checks.harness import StudentFunction, safe_text, show
from course.checks.oracle import code_for
from course.contract import TOOL_FAILED
from course.tools import fixture_tools
from course.widgets import (
    LABEL_STYLE,
    CheckVerdicts,
    html_views,
    not_defined,
    student_function,
)

# A request's outcome: (True, the value returned) or (False, the exception raised).
Outcome = tuple[bool, Any]


@dataclass(frozen=True)
class Walk:
    """One request on its way to an envelope, and the student's make_envelope (None if absent)."""

    request: dict[str, Any]
    outcome: Outcome
    make_envelope: StudentFunction | None


STAGES = ("start", "1", "2", "3")
# Two requests against the fixture tools: one succeeds, one is refused on purpose.
REQUESTS: dict[str, dict[str, Any]] = {
    "success": {"id": "req-42", "tool": "lookup_user", "arguments": {"user_id": "u-001"}},
    "failure": {
        "id": 0,
        "tool": "read_document",
        "arguments": {"document_id": "d-001", "as_user": "u-002"},
    },
}


def run_request(request: dict[str, Any]) -> Outcome:
    """Call the request's fixture tool once; return (True, value) or (False, exception)."""
    handler = fixture_tools()[request["tool"]]
    try:
        return True, handler(dict(request["arguments"]))
    except Exception as exc:
        return False, exc


def _json(value: object) -> str:
    return html.escape(json.dumps(value, ensure_ascii=False, indent=1))


def _id_badge(request_id: object, label: str = "id") -> str:
    shown = html.escape(show(request_id))
    return f"<span class='stepper-id'><b>{label}:</b> <code>{shown}</code></span>"


def _stage_start(walk: Walk) -> str:
    return (
        "<b>The request arrives.</b> It names a tool and its arguments, under an id.<br>"
        f"<pre>{_json(walk.request)}</pre>"
    )


def _stage_handler(walk: Walk) -> str:
    succeeded, result = walk.outcome
    call = f"<code>{html.escape(walk.request['tool'])}(arguments)</code>"
    if succeeded:
        return f"<b>The handler runs.</b> {call} returns:<pre>{_json(result)}</pre>"
    return (
        f"<b>The handler raises.</b> {call} raised <code>{type(result).__name__}</code>.<br>"
        "Its message stays on the server side, private: "
        f"<i>{html.escape(safe_text(result))}</i>"
    )


def _stage_classify(walk: Walk) -> str:
    succeeded, result = walk.outcome
    if succeeded:
        return (
            "<b>The outcome is classified.</b> The handler returned, so this is a success: "
            "<code>ok</code> will be <code>True</code> and the value travels on."
        )
    code = code_for(result)
    kind = "an unexpected" if code == TOOL_FAILED else "an expected"
    return (
        f"<b>The outcome is classified.</b> <code>{type(result).__name__}</code> is {kind} "
        f"failure, so its stable code is <code>{code}</code> (step 2 builds this mapping). "
        "Only the code travels on; the message does not."
    )


def _stage_envelope(walk: Walk) -> str:
    succeeded, result = walk.outcome
    request_id, make_envelope = walk.request["id"], walk.make_envelope
    if make_envelope is None:
        return f"<b>The envelope.</b> {not_defined('make_envelope')}"
    try:
        if succeeded:
            envelope = make_envelope(request_id, value=result)
        else:
            envelope = make_envelope(request_id, error=code_for(result))
    except NotImplementedError:
        return (
            "<b>The envelope.</b> Your <code>make_envelope</code> is not finished yet, so there "
            "is no envelope to show. Finish its exercise cell, run it, then run this cell again."
        )
    except Exception as error:
        return (
            f"<b>The envelope.</b> Your <code>make_envelope</code> raised "
            f"<code>{type(error).__name__}</code>: {html.escape(safe_text(error))}"
        )
    heading = "<b>The envelope, built by your <code>make_envelope</code>:</b>"
    expected = {"id": request_id, "ok": succeeded, "value": None, "error": None}
    if succeeded:
        expected["value"] = result
    else:
        expected["error"] = code_for(result)
    return heading + _envelope_view(envelope, expected)


def _envelope_view(envelope: object, expected: dict[str, Any]) -> str:
    """Show the envelope and the check's verdict on it: the one the check expects, or why not."""
    try:
        shown = f"<pre>{_json(envelope)}</pre>"
    except (TypeError, ValueError):
        shown = f"<pre>{html.escape(show(envelope))}</pre>"
    problem = envelope_mismatch(envelope, expected)
    if problem is None:
        return shown + (
            "<div class='stepper-verdict'>✓ This is the envelope the check expects, and the "
            "request's id came through unchanged.</div>"
        )
    return shown + (
        "<div class='stepper-verdict' style='color:#b00020'>⚠ "
        f"{html.escape(problem).replace(chr(10), '<br>')}</div>"
    )


# What each stage shows of a walk.
STAGE_VIEWS: dict[str, Callable[[Walk], str]] = {
    "start": _stage_start,
    "1": _stage_handler,
    "2": _stage_classify,
    "3": _stage_envelope,
}


def envelope_explorer(namespace: Namespace) -> widgets.VBox:
    """Return a widget that walks a request to its envelope, stage by stage.

    `namespace` is the notebook's `globals()`, where `make_envelope` is looked up at each stage.
    """
    outcome_pick = widgets.ToggleButtons(
        options=["success", "failure"], value="success", description="Outcome:", style=LABEL_STYLE
    )
    outcome_pick.add_class("stepper-outcome")
    stage_pick = widgets.ToggleButtons(
        options=list(STAGES), value="start", description="Stage:", style=LABEL_STYLE
    )
    stage_pick.add_class("stepper-stage")
    id_line, view, check = html_views("stepper-id-line", "stepper-view", "stepper-check")
    verdicts = CheckVerdicts()

    def render(_change: object = None) -> None:
        make_envelope = student_function(namespace, "make_envelope")
        request = REQUESTS[outcome_pick.value]
        outcome = run_request(request)
        label = f"{outcome_pick.value}, stage {stage_pick.value}: request id"
        id_line.value = _id_badge(request["id"], label=label)
        view.value = STAGE_VIEWS[stage_pick.value](Walk(request, outcome, make_envelope))
        check.value = verdicts.line("make_envelope", make_envelope)

    outcome_pick.observe(render, names="value")
    stage_pick.observe(render, names="value")
    render()
    box = widgets.VBox([outcome_pick, stage_pick, id_line, view, check])
    box.add_class("envelope-stepper")
    return box
