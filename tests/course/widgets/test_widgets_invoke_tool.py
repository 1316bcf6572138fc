"""The playground runs requests through invoke_tool and never shows a traceback."""

import json

import pytest
from builders import part, reference

from course.tools import PRIVATE_MARKER
from course.widgets.invoke_tool import invoke_tool_explorer, parse_request_id

pytestmark = []


@pytest.fixture
def invoke_tool():
    return reference("invoke_tool")


def run(widget, *, tool=None, arguments=None, request_id=None, budget=None):
    if tool is not None:
        part(widget, "playground-tool").value = tool
    if arguments is not None:
        part(widget, "playground-arguments").value = arguments
    if request_id is not None:
        part(widget, "playground-id").value = request_id
    if budget is not None:
        part(widget, "playground-budget").value = budget
    part(widget, "playground-run").click()
    return part(widget, "playground-envelope").value, part(widget, "playground-message").value


def test_a_run_shows_the_envelope_its_size_and_one_handler_run(invoke_tool):
    widget = invoke_tool_explorer({"invoke_tool": invoke_tool})
    assert "playground" in widget._dom_classes
    envelope, message = run(widget)
    assert "山田 花子" in envelope
    assert "75 bytes" in message
    assert "Handler runs: <b>1</b>" in message


def test_the_budget_box_reaches_the_exact_boundary(invoke_tool):
    widget = invoke_tool_explorer({"invoke_tool": invoke_tool})
    assert "&quot;ok&quot;: true" in run(widget, budget=75)[0]
    assert "result_too_large" in run(widget, budget=74)[0]


def test_digits_become_an_int_id_and_quoted_text_a_str_id(invoke_tool):
    widget = invoke_tool_explorer({"invoke_tool": invoke_tool})
    assert "&quot;id&quot;: 0," in run(widget, request_id="0")[0]
    assert "&quot;id&quot;: &quot;0&quot;," in run(widget, request_id='"0"')[0]
    assert parse_request_id(" req-7 ") == "req-7"


def test_an_unknown_tool_runs_no_handler(invoke_tool):
    envelope, message = run(invoke_tool_explorer({"invoke_tool": invoke_tool}), tool="send_email")
    assert "unknown_tool" in envelope
    assert "Handler runs: <b>0</b>" in message


def test_a_bug_shows_its_code_and_no_private_text(invoke_tool):
    envelope, _message = run(invoke_tool_explorer({"invoke_tool": invoke_tool}), tool="usage_stats")
    assert "tool_failed" in envelope
    assert PRIVATE_MARKER not in envelope


def test_picking_a_tool_fills_in_example_arguments(invoke_tool):
    widget = invoke_tool_explorer({"invoke_tool": invoke_tool})
    part(widget, "playground-tool").value = "team_roster"
    assert json.loads(part(widget, "playground-arguments").value) == {"team_id": "t-100"}


def test_invalid_json_is_told_in_a_sentence(invoke_tool):
    envelope, message = run(
        invoke_tool_explorer({"invoke_tool": invoke_tool}), arguments='{"user_id": '
    )
    assert envelope == ""
    assert message.startswith("The arguments are not valid JSON")
    assert "Traceback" not in message


def test_arguments_that_are_not_an_object_are_told_in_a_sentence(invoke_tool):
    assert (
        "must be a JSON object"
        in run(invoke_tool_explorer({"invoke_tool": invoke_tool}), arguments="[1, 2]")[1]
    )


def test_an_unfinished_invoke_tool_is_told_in_a_sentence():
    def unfinished(request, tools, *, max_result_bytes=4096):
        raise NotImplementedError()

    envelope, message = run(invoke_tool_explorer({"invoke_tool": unfinished}))
    assert envelope == ""
    assert "not finished yet" in message


def test_a_buggy_invoke_tool_is_told_in_a_sentence():
    def buggy(request, tools, *, max_result_bytes=4096):
        return {"id": request["id"], "ok": True, "value": tools[request["tool"]]}

    envelope, message = run(invoke_tool_explorer({"invoke_tool": buggy}))
    assert "CallCounter object" in envelope
    assert "cannot be written as JSON" in message


def test_an_invoke_tool_that_raises_is_told_in_a_sentence():
    def crashing(request, tools, *, max_result_bytes=4096):
        return tools[request["tool"]](request["arguments"])["missing"]

    envelope, message = run(invoke_tool_explorer({"invoke_tool": crashing}))
    assert envelope == ""
    assert "raised <code>KeyError</code>" in message
    assert "instead of returning an envelope" in message


def test_a_correct_envelope_gets_the_contracts_approval(invoke_tool):
    widget = invoke_tool_explorer({"invoke_tool": invoke_tool})
    for tool in ("lookup_user", "usage_stats", "user_tags", "send_email", "export_everything"):
        run(widget, tool=tool)
        assert part(widget, "playground-verdict").value == (
            "✓ This is the envelope the contract asks for."
        ), tool


def test_a_leaked_private_marker_is_warned_about_in_red(invoke_tool):
    # The issue: the playground showed a leaked private marker with no warning.
    def leaky(request, tools, *, max_result_bytes=4096):
        try:
            tools[request["tool"]](request["arguments"])
        except Exception as exc:
            return {"id": request["id"], "ok": False, "value": None, "error": f"tool_failed {exc}"}
        return invoke_tool(request, tools, max_result_bytes=max_result_bytes)

    widget = invoke_tool_explorer({"invoke_tool": leaky})
    run(widget, tool="usage_stats")
    verdict = part(widget, "playground-verdict").value
    assert verdict.startswith("<span style='color:#b00020; font-weight:bold'>⚠ Leak:")
    assert PRIVATE_MARKER in verdict


def test_a_wrong_code_and_a_retry_each_get_their_own_verdict(invoke_tool):
    def wrong_code(request, tools, *, max_result_bytes=4096):
        envelope = invoke_tool(request, tools, max_result_bytes=max_result_bytes)
        return dict(envelope, error="tool_failed") if envelope["error"] else envelope

    def retrying(request, tools, *, max_result_bytes=4096):
        invoke_tool(request, tools, max_result_bytes=max_result_bytes)
        return invoke_tool(request, tools, max_result_bytes=max_result_bytes)

    widget = invoke_tool_explorer({"invoke_tool": wrong_code})
    run(widget, tool="lookup_user", arguments='{"user_id": "u-999"}')
    assert "I expected error &#x27;not_found&#x27;" in part(widget, "playground-verdict").value
    widget = invoke_tool_explorer({"invoke_tool": retrying})
    run(widget)
    assert part(widget, "playground-verdict").value == (
        "✗ The handler ran 2 times; it must run exactly 1."
    )
