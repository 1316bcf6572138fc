"""Envelope: correlation (rule 1), shape (rule 2) and no side effects (rule 9).

The plain success cases are this category's anchors: they never step aside. A failure case
steps aside only when invoke_tool raised instead of returning, which rule 8 (error_codes)
judges; whether a failure should have happened at all is other categories' business.
"""

from typing import Any

from course.contract import ENVELOPE_KEYS, FAILURE_CODES, NOT_FOUND
from grader.hidden.cases import cases, judges, parametrize
from grader.hidden.judge.contract_rules import Rule, rules_of
from grader.hidden.judge.judging import judge
from grader.hidden.probes import (
    DEFAULT_ID,
    MARKER,
    ROOMY,
    envelope_of,
    field,
    loosely_equal,
    raises,
    returned,
    returns,
    returns_fixture,
    returns_made,
    scenario,
    step_aside,
    unknown_tool_scenario,
)
from grader.hidden.results import ARGUMENT_SETS, COPIED, DEEP_50, ONE, PAIR, ROWS_AND_NEXT
from grader.hidden.verdicts import (
    TWO_SUCCESSES,
    envelope_or_step_aside,
    falsy_settled_elsewhere,
    plain_verdict,
    settled_elsewhere,
)
from grader.sandbox.handlers import Scenario
from grader.sandbox.observation import Observation
from grader.sandbox.session import SubmissionSession
from grader.sandbox.values import same_json

CATEGORY = "envelope"

IDS = {
    "zero": ("for the id 0", 0),
    "empty": ('for the id "" (an empty string)', ""),
    "zero_text": ('for the id "0"', "0"),
    "text": ("for an id with accents and emoji", "call-ü😀"),
    "negative": ("for a negative int id", -7),
    "beyond_float": ("for an int id beyond 2**53, which a float cannot hold", 2**53 + 1),
    "huge": ("for a 30-digit int id", 10**30 + 7),
}


def failing(request_id: object) -> dict[str, Scenario]:
    """Return scenarios that end in each of the seven codes (and two more), under `request_id`."""
    return {
        "unknown_tool": unknown_tool_scenario(request_id),
        "invalid_input": scenario(raises("invalid_input"), request_id=request_id),
        "permission_denied": scenario(raises("permission_denied"), request_id=request_id),
        "not_found": scenario(raises("not_found"), request_id=request_id),
        "bug": scenario(raises("key_error"), request_id=request_id),
        "noted": scenario(raises("with_notes"), request_id=request_id),
        "structured": scenario(raises("structured_args"), request_id=request_id),
        "invalid_result": scenario(returns_made("object"), request_id=request_id),
        "too_large": scenario(returns("x" * 50), request_id=request_id, max_result_bytes=10),
    }


FAILURE_WORDS = {
    "unknown_tool": "for a tool that is not in the table",
    "invalid_input": "when the handler raises InvalidInputError",
    "permission_denied": "when the handler raises PermissionDeniedError",
    "not_found": "when the handler raises NotFoundError",
    "bug": "when the handler raises KeyError",
    "noted": "when the handler's exception carries notes",
    "structured": "when the handler's exception carries several arguments",
    "invalid_result": "when the handler returns an object outside the vocabulary",
    "too_large": "when the result is over the byte budget",
}
FAILURES = cases({name: (words, name) for name, words in FAILURE_WORDS.items()})
# Each failure is paired with an id that a careless `or` or truthiness test would lose.
FAILURE_IDS = {
    "unknown_tool": 0,
    "invalid_input": 2**53 + 1,
    "permission_denied": "",
    "not_found": "0",
    "bug": "0",
    "noted": -3,
    "structured": 10**30,
    "invalid_result": -3,
    "too_large": "call-ü😀",
}


def ids_match(observation: Observation, request_id: object) -> bool:
    envelope = envelope_of(observation)
    return isinstance(envelope, dict) and same_json(envelope.get("id"), request_id)


def engaged(observation: Observation) -> bool:
    """Say whether invoke_tool did anything at all: returned, or called a handler.

    Without this, code that does nothing would pass every "nothing changed" check.
    """
    return bool(observation.envelopes) or any(observation["calls"].values())


@judges("rule 1")
@parametrize("request_id", cases(IDS))
def test_id_survives_success(submission: SubmissionSession, request_id: object) -> None:
    """The id comes back unchanged, in type and value, when the handler succeeds."""
    observation = submission.call(scenario(returns(ONE), request_id=request_id))
    if observation.envelope is None:
        plain_verdict(submission, ONE)  # raising for this value under any id: rule 8's case
    assert ids_match(observation, request_id), observation.envelope


@judges("rule 1")
@parametrize("failure", FAILURES)
def test_id_survives_failure(submission: SubmissionSession, failure: str) -> None:
    """The id comes back unchanged, in type and value, whatever way the call fails."""
    request_id = FAILURE_IDS[failure]
    observation = submission.call(failing(request_id)[failure])
    envelope_or_step_aside(submission, observation, failing(DEFAULT_ID)[failure])
    assert ids_match(observation, request_id), observation.envelope


# The ownership category's plain values too: it steps aside on an envelope without a value.
SUCCESSES = {"pair": ("for the result [1, 2]", (PAIR, None))} | {
    name: (words, (value, ROOMY)) for name, (words, value) in COPIED.items()
}
SUCCESSES["deep_50"] = ("for a value nested 50 levels deep", (DEEP_50, ROOMY))


@judges("rule 2")
@parametrize("success", cases(SUCCESSES))
def test_success_envelope_has_exactly_four_keys(
    submission: SubmissionSession, success: tuple[object, int | None]
) -> None:
    """A success is a dict with exactly the keys id, ok, value and error."""
    value, budget = success
    probe = (
        scenario(returns(value))
        if budget is None
        else scenario(returns(value), max_result_bytes=budget)
    )
    observation = submission.call(probe)
    if observation.envelope is None:
        plain_verdict(submission, value)  # raising for this value at all: rule 8's case
    envelope = envelope_of(observation)
    assert isinstance(envelope, dict) and set(envelope) == set(ENVELOPE_KEYS), envelope


@judges("rule 2")
@parametrize("failure", FAILURES)
def test_failure_envelope_has_exactly_four_keys(
    submission: SubmissionSession, failure: str
) -> None:
    """A failure is a dict with exactly the keys id, ok, value and error."""
    observation = submission.call(failing("req-1")[failure])
    envelope = envelope_or_step_aside(submission, observation, failing(DEFAULT_ID)[failure])
    assert isinstance(envelope, dict) and set(envelope) == set(ENVELOPE_KEYS), envelope


@judges("rule 2")
def test_success_shape(submission: SubmissionSession) -> None:
    """A success has ok set to the bool True and error set to None."""
    observation = submission.call(scenario(returns(ONE)))
    settled_elsewhere(submission, observation, ONE)
    assert field(observation, "ok") is True and field(observation, "error") is None


def consistent(envelope: object) -> bool:
    """Say whether an envelope is a well-formed success or a well-formed failure.

    Whether this call should have failed at all is another category's rule (error codes,
    vocabulary, budget); the envelope's rule is that its fields agree with each other.
    """
    if not isinstance(envelope, dict) or set(envelope) != set(ENVELOPE_KEYS):
        return False
    if envelope["ok"] is True:
        return envelope["error"] is None
    return (
        envelope["ok"] is False
        and envelope["value"] is None
        and type(envelope["error"]) is str
        and envelope["error"] in FAILURE_CODES
    )


@judges("rule 2")
@parametrize("failure", FAILURES)
def test_failure_shape(submission: SubmissionSession, failure: str) -> None:
    """A failure has ok set to False, value None and error exactly one of the seven codes."""
    observation = submission.call(failing("req-1")[failure])
    envelope = envelope_or_step_aside(submission, observation, failing(DEFAULT_ID)[failure])
    assert consistent(envelope), envelope


FALSY: dict[str, tuple[str, object]] = {
    "none": ("for a handler that returns None", None),
    "false": ("for a handler that returns False", False),
    "zero": ("for a handler that returns 0", 0),
    "zero_float": ("for a handler that returns 0.0", 0.0),
    "empty_text": ('for a handler that returns ""', ""),
    "empty_list": ("for a handler that returns []", []),
    "empty_dict": ("for a handler that returns {}", {}),
}


# A value of ownership's (test_value_is_faithful): when it too comes back changed, the
# submission changes every value (text for data, Decimals for floats), which ownership judges.
CONTROL = COPIED["types"][1]


def value_kept(submission: SubmissionSession, observation: Observation, value: object) -> bool:
    """Say whether a falsy result came back as itself, compared loosely (0.0 == 0 == False)."""
    if loosely_equal(field(observation, "value"), value):
        return True
    control = submission.call(scenario(returns(CONTROL), max_result_bytes=ROOMY))
    succeeded = control.envelope is not None and field(control, "error") is None
    if succeeded and not loosely_equal(field(control, "value"), CONTROL):
        reason = "every value comes back changed, which the ownership category judges"
        raise step_aside(reason, "ownership", control)
    return False


@judges("rule 2")
@parametrize("value", cases(FALSY))
def test_falsy_result_is_a_success(submission: SubmissionSession, value: object) -> None:
    """A handler that returns a falsy value such as None, 0 or "" succeeds with that value."""
    observation = submission.call(scenario(returns(value)))
    falsy_settled_elsewhere(submission, observation, value, CONTROL)
    assert field(observation, "ok") is True and field(observation, "error") is None
    assert value_kept(submission, observation, value), observation.envelope


@judges("rule 2")
def test_extra_request_keys_are_ignored(submission: SubmissionSession) -> None:
    """Keys of the request other than id, tool and arguments change nothing in the envelope."""
    plain = returned(submission.call(scenario(returns(ONE), max_result_bytes=ROOMY)))
    probe = scenario(returns(ONE), max_result_bytes=ROOMY)
    probe["request"].update(trace="t-1", ok=False, error=NOT_FOUND, value=9)
    observation = submission.call(probe)
    envelope = envelope_of(observation)
    assert isinstance(envelope, dict) and set(envelope) == set(ENVELOPE_KEYS), envelope
    same = same_json(envelope, plain, observation.walk())  # both the student's
    assert same, "the envelope differs from the one without the other keys"
    assert not observation["request_changed"], "the request lost or changed its other keys"


OUTCOMES = {
    "success": ("after a success", "success"),
    "failure": ("after a failure", "failure"),
    "unknown_tool": ("after an unknown tool", "unknown_tool"),
    # The ownership category's two-call scenarios, asked here for the envelope's own rule 9.
    "rows": ("after a success with rows", "rows"),
    "same_object": ("after a handler returns the very same object twice", "same_object"),
}


@judges("rule 9")
@parametrize("outcome", cases(OUTCOMES))
def test_each_call_returns_a_new_envelope(submission: SubmissionSession, outcome: str) -> None:
    """Each call returns a new envelope, never an object it returned before or was given."""
    probes: dict[str, Scenario] = {
        "success": TWO_SUCCESSES,
        "failure": scenario(raises("invalid_input"), repeat=2),
        "unknown_tool": {**unknown_tool_scenario(), "repeat": 2},
        "rows": scenario(returns(ROWS_AND_NEXT), repeat=2),
        "same_object": scenario(returns_fixture(ROWS_AND_NEXT), repeat=2),
    }
    observation = submission.call(probes[outcome])
    results = {"success": ONE, "rows": ROWS_AND_NEXT, "same_object": ROWS_AND_NEXT}
    if outcome in results and observation.envelope is None:
        plain_verdict(submission, results[outcome])  # raising for this value at all: rule 8's
    returned(observation)
    assert len(observation.envelopes) == 2, "invoke_tool did not return twice"
    assert not observation["same_envelope"] and not observation["reused_object"]


ARGUMENTS = {"user": "u-1", "filters": {"tags": ["a", "b"], "limit": 3}}
LEFT_ALONE = {
    "success": ("after a success", scenario(returns({"n": 1}), arguments=ARGUMENTS)),
    "failure": (
        "after a failure",
        scenario(raises("permission_denied", MARKER), arguments=ARGUMENTS),
    ),
    "unknown_tool": ("after an unknown tool", unknown_tool_scenario()),
    "invalid_result": (
        "after a result outside the vocabulary",
        scenario(returns_made("bytes"), arguments=ARGUMENTS),
    ),
    "interrupted": (
        "after a KeyboardInterrupt passed through",
        scenario(raises("keyboard_interrupt", MARKER), arguments=ARGUMENTS),
    ),
}


@judges("rule 9")
@parametrize("probe", cases(LEFT_ALONE))
def test_request_is_left_unchanged(submission: SubmissionSession, probe: Scenario) -> None:
    """The call leaves the request exactly as it was, whatever the outcome."""
    observation = submission.call(probe)
    assert engaged(observation), "invoke_tool neither returned nor called the handler"
    assert not observation["request_changed"]


# Ownership's arguments (and the default ones), with a handler that changes nothing: ownership
# steps aside when invoke_tool changes the request by itself, and these are its cases here.
ANY_ARGUMENTS = {"default": ("for the arguments of a plain call", None)} | ARGUMENT_SETS


@judges("rule 9")
@parametrize("arguments", cases(ANY_ARGUMENTS))
def test_request_is_left_unchanged_whatever_its_arguments(
    submission: SubmissionSession, arguments: dict[str, Any] | None
) -> None:
    """A call leaves the request exactly as it was, whatever arguments it carries."""
    observation = submission.call(scenario(returns({"n": 1}), arguments=arguments))
    assert engaged(observation), "invoke_tool neither returned nor called the handler"
    assert not observation["request_changed"]


TOOLS_LEFT_ALONE = {
    "success": ("after a success", scenario(returns(1))),
    "failure": ("after a failure", scenario(raises("value_error"))),
    "unknown_tool": ("after an unknown tool", unknown_tool_scenario()),
    "interrupted": ("after a SystemExit passed through", scenario(raises("system_exit"))),
}


@judges("rule 9")
@parametrize("probe", cases(TOOLS_LEFT_ALONE))
def test_tools_are_left_unchanged(submission: SubmissionSession, probe: Scenario) -> None:
    """The call leaves the tools table exactly as it was: same names, same handlers."""
    observation = submission.call(probe)
    assert engaged(observation), "invoke_tool neither returned nor called the handler"
    assert not observation["tools_changed"]


@parametrize("rule", rules_of(CATEGORY))
def test_generated_scenarios_keep_the_rule(submission: SubmissionSession, rule: Rule) -> None:
    """Each generated scenario keeps the rule: ids, names, exceptions, values, budgets, programs."""
    judge(submission, rule)
