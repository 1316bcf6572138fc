"""What a rule reads of an observation: each call's outcome and envelope, and the tools' calls.

Every reading is as lenient as the envelope allows, so that a rule finds the fault it is about
and no other: an IntEnum code reads as its text, a dict subclass as the dict it holds.
"""

from typing import Any

from course.contract import FAILURE_CODES
from grader.hidden.judge.contract_model import SUCCESS
from grader.hidden.judge.corpus import Entry
from grader.hidden.probes import UNREADABLE, as_dict, plain
from grader.sandbox.crossing import untag
from grader.sandbox.observation import Observation
from grader.sandbox.values import same_json

UNANSWERED = "no envelope, because "  # what a scenario that hung or killed the worker gave


def outcome(envelope: object) -> str:
    """Return "success", a code, or UNREADABLE, read as leniently as the envelope allows."""
    if type(envelope) is not dict:
        return UNREADABLE
    error = plain(envelope.get("error", UNREADABLE))
    if error is None:
        return SUCCESS
    if type(error) is str and error in FAILURE_CODES:
        return error
    return SUCCESS if plain(envelope.get("ok")) is True else UNREADABLE


def envelopes(observation: Observation) -> list[Any]:
    """Return every envelope invoke_tool returned, each as the dict it really holds."""
    return [as_dict(envelope) for envelope in observation.envelopes]


def settled(entry: Entry, observation: Observation) -> int:
    """Return how many leading calls the other rules judge: all, or one after a rule-9 fault."""
    if len(entry.expected.outcomes) == 1:
        return 1  # one call: nothing after it to hide
    changed = observation["tools_changed"] or observation["reused_object"]
    changed = changed or observation["same_envelope"] or request_changed(observation)
    return 1 if changed else len(entry.expected.outcomes)


def request_changed(observation: Observation) -> bool:
    """Say whether invoke_tool itself changed the request (not a handler through shared data)."""
    data = observation.data
    return bool(data.get("request_changed")) and not data.get("arguments_shared")


def invocations(observation: Observation) -> int:
    """Return how many calls of invoke_tool ran: each returned, or the last one raised."""
    return len(observation.envelopes) + (observation.raised is not None)


def calls_right(entry: Entry, observation: Observation) -> bool:
    """Say whether each tool ran as rule 7 says for the calls that ran, on faithful arguments.

    A handler that returns its arguments returns what it was given: when that was not a copy
    equal to the request's arguments (rule 5's fault), its value is not the one expected.
    """
    if observation.data.get("stale_calls"):
        return False  # a tool of an earlier call's table ran: none of this call's counts
    tools = entry.scenario["tools"]
    name = entry.scenario["request"]["tool"]
    if name in tools and tools[name]["does"] == "return_arguments":
        received = observation.data.get("received", {}).get(name, [])
        wanted = entry.scenario["request"]["arguments"]
        if not all(same_json(untag(picture), wanted) for picture in received):
            return False
    runs = invocations(observation)
    repeat = len(entry.expected.outcomes)
    calls = observation["calls"]
    return all(
        calls.get(name, 0) == wanted // repeat * runs
        for name, wanted in entry.expected.calls.items()
    )


def calls_judged(entry: Entry, observation: Observation) -> list[tuple[tuple[str, ...], Any]]:
    """Pair each judged call's allowed outcomes with its envelope (None where none came)."""
    got = envelopes(observation)
    if len(entry.expected.outcomes) == 1:  # the common case, without the walk below
        return [(entry.expected.outcomes[0], got[0] if got else None)]
    pairs = list(enumerate(entry.expected.outcomes))[: settled(entry, observation)]
    return [(allowed, got[place] if place < len(got) else None) for place, allowed in pairs]


def said(envelope: object, observation: Observation) -> str:
    """Return the outcome of a call, or what invoke_tool did instead of returning."""
    if envelope is not None:
        return outcome(envelope)
    raised = observation.raised
    if raised is None:
        return "no envelope"
    return raised_words(raised["type"])


def raised_words(kind: str) -> str:
    """Say what invoke_tool did instead of returning: raised a type, or hung or crashed."""
    return kind if kind.startswith(UNANSWERED) else f"invoke_tool raising {kind}"
