"""Step 7's playground: send any request to the fixture tools through the student's `invoke_tool`.

The student picks a tool, writes its arguments as JSON, sets the request id and the byte budget,
and presses Run. The playground shows the request, the envelope that came back, its size in
UTF-8 bytes, how many times a handler ran, and a verdict: the envelope the contract asks for,
or what is wrong with it (a leak of the exception's text first). Every problem, from a typo in
the JSON to an unfinished `invoke_tool`, is told in a plain sentence, never as a traceback.
"""

import html
import json
from types import MappingProxyType
from typing import Any

import ipywidgets as widgets

from course.carry.execute import Namespace
from course.checks.harness import StudentFunction, safe_text, show
from course.checks.oracle import envelope_problem, fixture_outcome, private_texts, raised_by
from course.contract import DEFAULT_MAX_RESULT_BYTES, UNKNOWN_TOOL
from course.tools import CallCounter, fixture_tools
from course.widgets import (
    LABEL_STYLE,
    CheckVerdicts,
    button,
    not_defined,
    save_note,
    student_function,
)

UNREGISTERED_TOOL = "send_email"
# Arguments that make each tool do something worth seeing; read-only, shared by every playground.
EXAMPLE_ARGUMENTS = MappingProxyType(
    {
        "lookup_user": '{"user_id": "u-001"}',
        "read_document": '{"as_user": "u-002", "document_id": "d-001"}',
        "convert_temperature": '{"celsius": 21.5}',
        "team_roster": '{"team_id": "t-100"}',
        "export_everything": '{"copies": 40}',
        "user_tags": '{"user_id": "u-004"}',
        "usage_stats": '{"user_id": "u-001"}',
        UNREGISTERED_TOOL: '{"to": "u-001", "subject": "hello"}',
    }
)


def tool_options() -> list[str]:
    """The tool names to pick from: the fixture tools, then one that is not registered."""
    return [*fixture_tools(), UNREGISTERED_TOOL]


def parse_request_id(text: str) -> int | str:
    """Digits become an int id; text in double quotes becomes that string; anything else stays."""
    text = text.strip()
    if text.isascii() and text.isdigit():
        return int(text)
    if len(text) >= 2 and text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    return text


def parse_arguments(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """Return (arguments, None), or (None, a sentence saying what is wrong with the JSON)."""
    try:
        arguments = json.loads(text)
    except json.JSONDecodeError as error:
        return None, (
            f"The arguments are not valid JSON: {html.escape(error.msg)} at line {error.lineno}, "
            f"column {error.colno}. Fix the text and press Run again."
        )
    if not isinstance(arguments, dict):
        return None, (
            'The arguments must be a JSON object in braces, such as {"user_id": "u-001"}, '
            f"not {html.escape(show(arguments))}."
        )
    return arguments, None


def _pretty(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, indent=2)
    except (TypeError, ValueError):
        return show(value)


def envelope_size_line(envelope: object, budget: int) -> str:
    """Say how many UTF-8 bytes the envelope and its value take, next to the budget."""
    if not isinstance(envelope, dict):
        return "⚠ An envelope is a dict with the keys id, ok, value and error."
    try:
        whole = len(json.dumps(envelope, ensure_ascii=False).encode("utf-8"))
        value = len(json.dumps(envelope.get("value"), ensure_ascii=False).encode("utf-8"))
    except (TypeError, ValueError):
        return "⚠ This envelope cannot be written as JSON text, so it cannot cross the boundary."
    return (
        f"The envelope is {whole} bytes of UTF-8 JSON; its value is {value} bytes "
        f"(budget: {budget} bytes)."
    )


def run_request(
    invoke_tool: StudentFunction | None, request: dict[str, Any], budget: int
) -> tuple[Any, int, str | None]:
    """Run one request on fresh fixture tools; return (envelope, handler runs, problem)."""
    if invoke_tool is None:
        return None, 0, not_defined("invoke_tool")
    tools = {name: CallCounter(handler) for name, handler in fixture_tools().items()}
    try:
        envelope = invoke_tool(request, tools, max_result_bytes=budget)
    except NotImplementedError:
        problem = (
            "Your <code>invoke_tool</code>, or a step it calls, is not finished yet. The check "
            "above says which; finish it, run its cell, then press Run again."
        )
        return None, 0, problem
    except Exception as error:
        problem = (
            f"Your <code>invoke_tool</code> raised <code>{type(error).__name__}</code> "
            f"({html.escape(safe_text(error))}) instead of returning an envelope. "
            "Run the check above to see where."
        )
        return None, 0, problem
    return envelope, sum(counter.calls for counter in tools.values()), None


def envelope_verdict(request: dict[str, Any], envelope: object, runs: int, budget: int) -> str:
    """Judge one envelope as the check would: a leak first, then its fields, then the runs."""
    tool, arguments = request["tool"], request["arguments"]
    text = safe_text(envelope)
    leaked = [piece for piece in private_texts(raised_by(tool, arguments)) if piece in text]
    if tool in fixture_tools() and leaked:
        return (
            "<span style='color:#b00020; font-weight:bold'>⚠ Leak: the envelope holds "
            f"<code>{html.escape(leaked[0])}</code>, text of the exception the handler raised. "
            "It would reach the model; only the code may.</span>"
        )
    try:
        value, code = fixture_outcome(tool, arguments, budget)
    except Exception:  # arguments the example tools were never meant for, say
        return "The playground cannot tell which envelope the contract asks for here."
    problem = envelope_problem(envelope, request["id"], value=value, error=code)
    if problem:
        return f"✗ {html.escape(problem)}"
    expected_runs = 0 if code == UNKNOWN_TOOL else 1
    if runs != expected_runs:
        return f"✗ The handler ran {runs} times; it must run exactly {expected_runs}."
    return "✓ This is the envelope the contract asks for."


def _controls() -> tuple[Any, ...]:
    options = tool_options()
    tool_pick = widgets.Dropdown(
        options=options, value=options[0], description="Tool:", style=LABEL_STYLE
    )
    arguments_box = widgets.Textarea(
        value=EXAMPLE_ARGUMENTS[options[0]],
        description="Arguments (JSON):",
        rows=4,
        style=LABEL_STYLE,
        layout=widgets.Layout(width="36rem"),
    )
    id_box = widgets.Text(
        value="1", description="Request id:", placeholder='7, or "0" for a str', style=LABEL_STYLE
    )
    # A number box, not a slider: ipywidgets gives a slider's handle no accessible name.
    budget = widgets.BoundedIntText(
        value=DEFAULT_MAX_RESULT_BYTES,
        min=0,
        max=2 * DEFAULT_MAX_RESULT_BYTES,
        description="Budget (max_result_bytes):",
        style=LABEL_STYLE,
        layout=widgets.Layout(width="36rem"),
    )
    run_button = button("Run", "playground-run", button_style="primary")
    parts = (tool_pick, arguments_box, id_box, budget)
    for part, name in zip(parts, ("tool", "arguments", "id", "budget"), strict=True):
        part.add_class(f"playground-{name}")
    return (*parts, run_button)


def invoke_tool_explorer(namespace: Namespace) -> widgets.VBox:
    """Return the playground widget on the student's `invoke_tool`.

    `namespace` is the notebook's `globals()`, where `invoke_tool` is looked up at each run.
    """
    tool_pick, arguments_box, id_box, budget, run_button = _controls()
    views = {name: widgets.HTML() for name in ("request", "envelope", "message", "verdict")}
    views["check"] = widgets.HTML()
    for name, view in views.items():
        view.add_class(f"playground-{name}")
    verdicts = CheckVerdicts()

    def pick_tool(change: dict[str, Any]) -> None:
        arguments_box.value = EXAMPLE_ARGUMENTS.get(change["new"], "{}")

    def run(_button: object = None) -> None:
        for view in views.values():
            view.value = ""
        invoke_tool = student_function(namespace, "invoke_tool")
        views["check"].value = verdicts.line("invoke_tool", invoke_tool)
        arguments, problem = parse_arguments(arguments_box.value)
        if problem:
            views["message"].value = problem
            return
        request = {"id": parse_request_id(id_box.value), "tool": tool_pick.value}
        request["arguments"] = arguments
        views["request"].value = f"<b>Request</b><pre>{html.escape(_pretty(request))}</pre>"
        envelope, runs, problem = run_request(invoke_tool, request, budget.value)
        if problem:
            views["message"].value = problem
            return
        views["envelope"].value = f"<b>Envelope</b><pre>{html.escape(_pretty(envelope))}</pre>"
        views[
            "message"
        ].value = f"{envelope_size_line(envelope, budget.value)}<br>Handler runs: <b>{runs}</b>."
        views["verdict"].value = envelope_verdict(request, envelope, runs, budget.value)

    tool_pick.observe(pick_tool, names="value")
    run_button.on_click(run)
    controls = widgets.VBox([tool_pick, arguments_box, id_box, save_note(), budget, run_button])
    outputs = [views["message"], views["verdict"], views["check"]]
    box = widgets.VBox([controls, *outputs, widgets.HBox([views["request"], views["envelope"]])])
    box.add_class("playground")
    return box
