"""Envelope: correlation (rule 1), shape (rule 2) and no side effects (rule 9)."""

import pytest

from course.supplied import FAILURE_CODES
from grader.hidden.probes import (
    MARKER,
    raises,
    returns,
    returns_made,
    scenario,
    unknown_tool_scenario,
)
from grader.sandbox.values import same_json

pytestmark = pytest.mark.category("envelope")

IDS = {"zero": 0, "empty": "", "zero_text": "0", "text": "call-ü😀"}
KEYS = {"id", "ok", "value", "error"}


def failing(request_id):
    """Return scenarios that end in each kind of failure, under `request_id`."""
    return {
        "unknown_tool": unknown_tool_scenario(request_id),
        "raised": scenario(raises("not_found"), request_id=request_id),
        "bug": scenario(raises("key_error"), request_id=request_id),
        "invalid_result": scenario(returns_made("object"), request_id=request_id),
        "too_large": scenario(returns("x" * 50), request_id=request_id, max_result_bytes=10),
    }


FAILURES = sorted(failing(0))
# Each failure is paired with an id that a careless `or` or truthiness test would lose.
FAILURE_IDS = {"unknown_tool": 0, "raised": "", "bug": "0", "invalid_result": -3}
FAILURE_IDS["too_large"] = "call-ü😀"


def engaged(observation):
    """Say whether invoke_tool did anything at all: returned, or called a handler.

    Without this, code that does nothing would pass every "nothing changed" check.
    """
    return bool(observation.envelopes) or any(observation["calls"].values())


def ids_match(observation, request_id):
    envelope = observation.envelope
    return isinstance(envelope, dict) and same_json(envelope.get("id"), request_id)


@pytest.mark.parametrize("request_id", IDS.values(), ids=IDS.keys())
def test_id_survives_success(submission, request_id):
    """The id comes back unchanged, in type and value, when the handler succeeds."""
    observation = submission.call(scenario(returns({"n": 1}), request_id=request_id))
    assert ids_match(observation, request_id), observation.envelope


@pytest.mark.parametrize("failure", FAILURES)
def test_id_survives_failure(submission, failure):
    """The id comes back unchanged, in type and value, whatever way the call fails."""
    request_id = FAILURE_IDS[failure]
    observation = submission.call(failing(request_id)[failure])
    assert ids_match(observation, request_id), observation.envelope


def test_success_envelope_has_exactly_four_keys(submission):
    """A success is a dict with exactly the keys id, ok, value and error."""
    envelope = submission.call(scenario(returns([1, 2]))).envelope
    assert isinstance(envelope, dict) and set(envelope) == KEYS, envelope


@pytest.mark.parametrize("failure", FAILURES)
def test_failure_envelope_has_exactly_four_keys(submission, failure):
    """A failure is a dict with exactly the keys id, ok, value and error."""
    envelope = submission.call(failing("req-1")[failure]).envelope
    assert isinstance(envelope, dict) and set(envelope) == KEYS, envelope


def test_success_shape(submission):
    """A success has ok set to the bool True and error set to None."""
    observation = submission.call(scenario(returns({"n": 1})))
    assert observation.field("ok") is True and observation.field("error") is None


def consistent(envelope):
    """Say whether an envelope is a well-formed success or a well-formed failure.

    Whether this call should have failed at all is another category's rule (error codes,
    vocabulary, budget); the envelope's rule is that its fields agree with each other.
    """
    if not isinstance(envelope, dict) or set(envelope) != KEYS:
        return False
    if envelope["ok"] is True:
        return envelope["error"] is None
    return (
        envelope["ok"] is False and envelope["value"] is None and envelope["error"] in FAILURE_CODES
    )


@pytest.mark.parametrize("failure", FAILURES)
def test_failure_shape(submission, failure):
    """A failure has ok set to the bool False, value None and error one of the contract's codes."""
    envelope = submission.call(failing("req-1")[failure]).envelope
    assert consistent(envelope), envelope


FALSY = {"none": None, "false": False, "zero": 0, "empty_text": ""}
FALSY |= {"empty_list": [], "empty_dict": {}}


@pytest.mark.parametrize("value", FALSY.values(), ids=FALSY.keys())
def test_falsy_result_is_a_success(submission, value):
    """A handler that returns a falsy value such as None, False, 0 or "" has succeeded."""
    observation = submission.call(scenario(returns(value)))
    assert observation.field("ok") is True and observation.field("error") is None


def test_extra_request_keys_are_ignored(submission):
    """Keys of the request other than id, tool and arguments change nothing in the envelope."""
    probe = scenario(returns(5))
    probe["request"].update(trace="t-1", ok=False, error="not_found", value=9)
    envelope = submission.call(probe).envelope
    assert isinstance(envelope, dict) and set(envelope) == KEYS, envelope
    assert envelope["ok"] is True and envelope["error"] is None, envelope


@pytest.mark.parametrize("outcome", ["success", "failure", "unknown_tool"])
def test_each_call_returns_a_new_envelope(submission, outcome):
    """Each call returns a new envelope, never an object it returned before or was given."""
    probes = {
        "success": scenario(returns({"n": 1}), repeat=2),
        "failure": scenario(raises("invalid_input"), repeat=2),
        "unknown_tool": dict(unknown_tool_scenario(), repeat=2),
    }
    observation = submission.call(probes[outcome])
    assert len(observation.envelopes) == 2, "invoke_tool did not return twice"
    assert not observation["same_envelope"] and not observation["reused_object"]


@pytest.mark.parametrize("outcome", ["success", "failure", "unknown_tool", "invalid_result"])
def test_request_is_left_unchanged(submission, outcome):
    """The call leaves the request exactly as it was, whatever the outcome."""
    arguments = {"user": "u-1", "filters": {"tags": ["a", "b"], "limit": 3}}
    probes = {
        "success": scenario(returns({"n": 1}), arguments=arguments),
        "failure": scenario(raises("permission_denied", MARKER), arguments=arguments),
        "unknown_tool": unknown_tool_scenario(),
        "invalid_result": scenario(returns_made("bytes"), arguments=arguments),
    }
    observation = submission.call(probes[outcome])
    assert engaged(observation), "invoke_tool neither returned nor called the handler"
    assert not observation["request_changed"]


@pytest.mark.parametrize("outcome", ["success", "failure", "unknown_tool"])
def test_tools_are_left_unchanged(submission, outcome):
    """The call leaves the tools table exactly as it was: same names, same handlers."""
    probes = {
        "success": scenario(returns(1)),
        "failure": scenario(raises("value_error")),
        "unknown_tool": unknown_tool_scenario(),
    }
    observation = submission.call(probes[outcome])
    assert engaged(observation), "invoke_tool neither returned nor called the handler"
    assert not observation["tools_changed"]
