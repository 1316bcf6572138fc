"""What the worker observes for the hidden tests, beyond the envelope: each fact beside its twin.

Each fact is shown on the reference (which keeps the rule) and on the same code with one bug
that only this fact can reveal.
"""

import pytest
from sandboxes import reference_with, session_for

from grader.hidden.probes import falsy, raises, returns, scenario

pytestmark = [pytest.mark.bwrap]

NOTED = """
def invoke_tool(request, tools, **options):
    try:
        return _honest(request, tools, **options)
    except BaseException as error:
        error.add_note("while calling a tool")
        raise
"""
CAUSED = """
def invoke_tool(request, tools, **options):
    try:
        return _honest(request, tools, **options)
    except BaseException as error:
        raise error from None
"""
FALSY_IS_MISSING = """
def invoke_tool(request, tools, **options):
    if not tools.get(request["tool"]):
        return {"id": request["id"], "ok": False, "value": None, "error": "unknown_tool"}
    return _honest(request, tools, **options)
"""
POPS_ARGUMENTS = """
def invoke_tool(request, tools, **options):
    arguments = request.pop("arguments")  # handed on uncopied, then put back
    try:
        value = tools[request["tool"]](arguments)
        return {"id": request["id"], "ok": True, "value": value, "error": None}
    finally:
        request["arguments"] = arguments
"""
REUSED_ENVELOPE = """
_ENVELOPE = {}
_CACHE = {}
def invoke_tool(request, tools, **options):
    fresh = _honest(request, tools, **options)
    if fresh["ok"]:
        fresh["value"] = _CACHE.setdefault(repr(fresh["value"]), fresh["value"])
    _ENVELOPE.clear()
    _ENVELOPE.update(fresh)
    return _ENVELOPE
"""
# Puts back a value Python calls equal: 1 for True, True for 1, 0.0 for -0.0.
RETYPES_ARGUMENTS = """
def invoke_tool(request, tools, **options):
    envelope = _honest(request, tools, **options)
    arguments = request["arguments"]
    for key, value in list(arguments.items()):
        if type(value) is bool:
            arguments[key] = int(value)
        elif type(value) is int:
            arguments[key] = bool(value)
        else:
            arguments[key] = abs(value)
    return envelope
"""
PASSES_ON_MEMORY_ERROR = """
def invoke_tool(request, tools, **options):
    try:
        return tools[request["tool"]](request["arguments"])
    except MemoryError:
        raise
"""


def observe(server, source, test):
    session = session_for(server, source)
    try:
        return session.call(test)
    finally:
        session.stop()


@pytest.mark.parametrize(
    ("bug", "changed"), [(NOTED, ["notes", "note_count"]), (CAUSED, ["suppress_context"])]
)
def test_a_base_exception_changed_on_its_way_out_is_told_apart(fork_server, bug, changed):
    test = scenario(raises("keyboard_interrupt"))
    honest = observe(fork_server, reference_with(""), test)
    assert honest.raised == {"type": "KeyboardInterrupt", "same_object": True, "changed": []}
    noted = observe(fork_server, reference_with(bug), test)
    assert noted.raised["same_object"] and noted.raised["changed"] == changed


def test_a_falsy_handler_is_still_called(fork_server):
    test = scenario(falsy(returns({"n": 1})))
    honest = observe(fork_server, reference_with(""), test)
    assert honest["calls"] == {"probe": 1} and honest.envelope["value"] == {"n": 1}
    buggy = observe(fork_server, reference_with(FALSY_IS_MISSING), test)
    assert buggy["calls"] == {"probe": 0} and buggy.envelope["error"] == "unknown_tool"


def test_arguments_taken_out_of_the_request_are_still_the_callers(fork_server):
    test = scenario(returns(1))
    assert not observe(fork_server, reference_with(""), test)["arguments_shared"]
    assert observe(fork_server, reference_with(POPS_ARGUMENTS), test)["arguments_shared"]


def test_a_value_is_judged_as_returned_even_when_the_envelope_is_reused(fork_server):
    test = scenario(returns({"rows": [1]}), repeat=2)
    honest = observe(fork_server, reference_with(""), test)
    assert not honest["value_reused"] and not honest["same_envelope"]
    cached = observe(fork_server, reference_with(REUSED_ENVELOPE), test)
    assert cached["same_envelope"] and cached["value_reused"]


def test_a_tools_own_memory_error_passed_on_is_described_not_taken_for_running_out(fork_server):
    observation = observe(
        fork_server, reference_with(PASSES_ON_MEMORY_ERROR), scenario(raises("memory_error"))
    )
    assert observation.raised == {"type": "MemoryError", "same_object": True, "changed": []}
    assert observation["calls"] == {"probe": 1}


@pytest.mark.parametrize("given", [1, True, -0.0], ids=["int", "bool", "negative-zero"])
def test_a_request_given_back_with_an_equal_value_of_another_kind_is_seen_changed(
    fork_server, given
):
    # Python's == takes True for 1 and 0.0 for -0.0: the worker compares pictures by their text.
    test = scenario(returns(1), arguments={"n": given})
    assert not observe(fork_server, reference_with(""), test)["request_changed"]
    assert observe(fork_server, reference_with(RETYPES_ARGUMENTS), test)["request_changed"]


@pytest.mark.parametrize("text", ["fixture", "arguments"])
def test_a_tool_that_returns_the_name_of_what_it_could_give_back_returns_that_text(
    fork_server, text
):
    observation = observe(fork_server, reference_with(""), scenario(returns(text)))
    assert observation.envelope == {"id": "req-7", "ok": True, "value": text, "error": None}
