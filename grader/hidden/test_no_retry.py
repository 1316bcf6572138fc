"""No retry (rule 7): each call of invoke_tool calls the handler exactly once, whatever happens."""

import pytest

from grader.hidden.probes import (
    describe_raise,
    flaky,
    raises,
    returns,
    returns_made,
    scenario,
    unknown_tool_scenario,
)

pytestmark = pytest.mark.category("no_retry")

HANDLERS = {
    "success": returns({"n": 1}),
    "returns_none": returns(None),
    "returns_false": returns(False),
    "invalid_input": raises("invalid_input"),
    "permission_denied": raises("permission_denied"),
    "not_found": raises("not_found"),
    "tool_failed": raises("runtime_error"),
    "unprintable": raises("unprintable"),
    "invalid_result": returns_made("object"),
    "surrogate": returns("\ud800"),
    "too_deep": returns_made("deep_list", depth=5000),
    "flaky": flaky({"n": 1}),
    "keyboard_interrupt": raises("keyboard_interrupt"),
}


@pytest.mark.parametrize("handler", HANDLERS.values(), ids=HANDLERS.keys())
def test_handler_is_called_exactly_once(submission, handler):
    """The handler is called exactly once per call of invoke_tool, whatever it returns or raises."""
    observation = submission.call(scenario(handler))
    assert observation["calls"] == {"probe": 1}


def test_too_large_result_is_not_retried(submission):
    """A result over the byte budget is not fetched again: the handler is called once."""
    observation = submission.call(scenario(returns("x" * 100), max_result_bytes=10))
    assert observation["calls"] == {"probe": 1}


@pytest.mark.parametrize("handler", ["success", "tool_failed"])
def test_two_calls_call_the_handler_twice(submission, handler):
    """Two calls of invoke_tool call the handler exactly twice, once each."""
    observation = submission.call(scenario(HANDLERS[handler], repeat=2))
    assert observation["calls"] == {"probe": 2}


@pytest.mark.parametrize("tool", ["missing", "PROBE"])
def test_unknown_tool_calls_no_handler(submission, tool):
    """For an unknown tool, no handler at all is called."""
    observation = submission.call(unknown_tool_scenario(tool=tool))
    assert observation.envelope is not None, describe_raise(observation)
    assert observation["calls"] == {"probe": 0, "other": 0}


def test_only_the_named_tool_is_called(submission):
    """Only the handler named by the request is called, never its neighbours in the table."""
    probe = scenario(returns(1))
    probe["tools"]["other"] = returns(2)
    assert submission.call(probe)["calls"] == {"probe": 1, "other": 0}
