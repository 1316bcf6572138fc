"""No retry (rule 7): each call of invoke_tool calls the handler exactly once, whatever happens.

"Whatever happens" includes a handler that raises MemoryError (the worker tells the tool's own
MemoryError passed on from running out of memory) and a handler object whose truth value is
False, which is still a tool.
"""

from typing import Any

from grader.hidden.cases import cases, parametrize, runs_last
from grader.hidden.judge.contract_rules import Rule, rules_of
from grader.hidden.judge.judging import judge
from grader.hidden.probes import (
    FALSY_HANDLERS,
    UNKNOWN_NAMES,
    flaky,
    raises,
    returned,
    returns,
    returns_made,
    scenario,
    unknown_tool_scenario,
)
from grader.hidden.results import ARGUMENT_SETS, LEAF, ONE
from grader.hidden.verdicts import (
    TWO_MUTATING_CALLS,
    TWO_SUCCESSES,
    called_for,
    envelope_or_step_aside,
    handler_judged,
    handler_skipped,
    plain_verdict,
    request_kept,
)
from grader.sandbox.crossing import ToolSpec
from grader.sandbox.handlers import Scenario
from grader.sandbox.session import SubmissionSession

CATEGORY = "no_retry"

HANDLERS = {
    "success": ("for a success", returns(ONE)),
    "returns_none": ("for a handler that returns None", returns(None)),
    "returns_false": ("for a handler that returns False", returns(False)),
    "returns_empty": ("for a handler that returns []", returns([])),
    "invalid_input": ("for InvalidInputError", raises("invalid_input")),
    "permission_denied": ("for PermissionDeniedError", raises("permission_denied")),
    "not_found": ("for NotFoundError", raises("not_found")),
    "tool_failed": ("for RuntimeError", raises("runtime_error")),
    "os_error": ("for OSError", raises("os_error")),
    "connection_error": ("for ConnectionError", raises("connection_error")),
    "timeout_error": ("for TimeoutError", raises("timeout_error")),
    "memory_error": ("for MemoryError", raises("memory_error")),
    "not_implemented": ("for NotImplementedError", raises("not_implemented")),
    "unprintable": ("for an exception whose str() fails", raises("unprintable")),
    "invalid_result": ("for a result outside the vocabulary", returns_made("object")),
    "surrogate": ("for a result holding a lone surrogate", returns("\ud800")),
    "too_deep": ("for a result nested too deeply to encode", returns_made("deep_list", depth=5000)),
    "huge_int": ("for an int too long to convert", returns({"n": 10**5000})),
    "flaky": ("for a handler that would succeed on a second try", flaky({"n": 1})),
    "keyboard_interrupt": ("for KeyboardInterrupt", raises("keyboard_interrupt")),
    **FALSY_HANDLERS,  # a handler is any callable, whatever its truth value
}


@parametrize("handler", cases(HANDLERS))
def test_handler_is_called_exactly_once(submission: SubmissionSession, handler: ToolSpec) -> None:
    """The handler is called exactly once per call of invoke_tool, whatever it returns or raises."""
    observation = submission.call(scenario(handler))
    assert observation["calls"] == {"probe": 1}


@parametrize("arguments", cases(ARGUMENT_SETS))
def test_handler_is_called_once_whatever_the_arguments(
    submission: SubmissionSession, arguments: dict[str, Any]
) -> None:
    """The handler is called exactly once, whatever arguments the request carries."""
    assert called_for(submission, arguments) == 1


def test_too_large_result_is_not_retried(submission: SubmissionSession) -> None:
    """A result over the byte budget is not fetched again: the handler is called once."""
    observation = submission.call(scenario(returns("x" * 100), max_result_bytes=10))
    assert observation["calls"] == {"probe": 1}


# Two calls, and what rule 8 asks if the first raised: the returned value's plain call, or
# error_codes' own scenario of the failing handler.
TWICE: dict[str, tuple[str, tuple[Scenario, object]]] = {
    "success": ("for a success", (TWO_SUCCESSES, ONE)),
    "tool_failed": ("for RuntimeError", (scenario(raises("runtime_error"), repeat=2), None)),
    # Ownership's two calls, whose copies it tells apart only when the handler runs once each.
    "mutating": ("for a handler that changes its arguments", (TWO_MUTATING_CALLS, LEAF)),
}


@parametrize("twice", cases(TWICE))
def test_two_calls_call_the_handler_twice(
    submission: SubmissionSession, twice: tuple[Scenario, object]
) -> None:
    """Two calls of invoke_tool call the handler exactly twice, once each."""
    probe, value = twice
    observation = submission.call(probe)
    if observation.raised is not None and value is not None:  # the second call never ran
        plain_verdict(submission, value)  # raising for this value at all: rule 8's case
    elif observation.raised is not None:
        envelope_or_step_aside(submission, observation, scenario(raises("runtime_error")))
    arguments = probe["request"]["arguments"]
    request_kept(submission, observation, arguments)  # a request changed is another input
    assert observation["calls"] == {"probe": 2}


@parametrize("tool", cases(UNKNOWN_NAMES))
def test_unknown_tool_calls_no_handler(submission: SubmissionSession, tool: str) -> None:
    """For an unknown tool, no handler at all is called."""
    observation = submission.call(unknown_tool_scenario(tool=tool))
    returned(observation)  # code that raises at once calls nothing either: rule 8 judges that
    assert observation["calls"] == {"probe": 0, "other": 0}


def test_only_the_named_tool_is_called(submission: SubmissionSession) -> None:
    """Only the handler named by the request is called, never its neighbours in the table."""
    probe = scenario(returns(1))
    probe["tools"]["other"] = returns(2)
    assert submission.call(probe)["calls"] == {"probe": 1, "other": 0}


@parametrize("rule", rules_of(CATEGORY))
def test_generated_scenarios_keep_the_rule(submission: SubmissionSession, rule: Rule) -> None:
    """Each generated scenario keeps the rule: ids, names, exceptions, values, budgets, programs."""
    judge(submission, rule)


@runs_last
def test_every_asked_call_runs_its_handler(submission: SubmissionSession) -> None:
    """Every call of the other tests ran its handler: none was skipped for what came before."""
    # After every other test, it asks each scenario they asked (each observed once, so asking
    # again costs nothing): a test of another category whose handler was skipped (a breaker
    # opened by earlier failures, a cache) steps aside for this one, which judges it here.
    # A plain success first (its own test asked it already): a submission out of time times
    # out here, as at every other test, and one that answers has a call to be judged on.
    submission.call(scenario(returns(ONE)))
    asked = [(probe, submission.call(probe)) for probe in list(submission.scenarios.values())]
    judged = [(probe, seen) for probe, seen in asked if handler_judged(probe, seen)]
    assert judged, "invoke_tool never answered a call whose handler must run"  # no points for it
    skipped = [probe for probe, seen in judged if handler_skipped(probe, seen)]
    assert not skipped, f"{len(skipped)} calls returned without calling their handler"
