"""Each call of invoke_tool a handler makes is judged on its own, and a fault only where it is."""

import pytest

from grader.hidden.judge.contract_model import expect
from grader.hidden.judge.contract_rules import RULES, SKIP
from grader.hidden.judge.corpus import Entry
from grader.hidden.judge.levels import call_words, levels, verdicts
from grader.hidden.probes import nests, returns, scenario
from grader.sandbox.inside.picture import tag, untag
from grader.sandbox.observation import Observation

pytestmark = []

INNER = scenario(returns({"n": 1}), request_id=7, max_result_bytes=5)
NESTING = scenario(nests(INNER, value="x" * 20), max_result_bytes=22)  # id "req-7"


def entry(built):
    expected = expect(built)
    return Entry(built, expected, untag(expected.value))


def envelope(request_id, value=None, error=None):
    return {"id": request_id, "ok": error is None, "value": value, "error": error}


def observed(outer, inner, calls, raised=None):
    """An observation of NESTING: the outer envelope (or what it raised), the inner report."""
    return Observation(
        {
            "envelopes": [] if outer is None else [tag(outer)],
            "raised": raised,
            "tools_changed": False,
            "reused_object": False,
            "same_envelope": False,
            "forbidden": [],
            "calls": calls,
            "received": {},
            "handler_raised": [],
            "nested": [{"at": "probe", **inner}],
        }
    )


def faults(found):
    """The rules that found a fault."""
    return [name for name, verdict in found.items() if isinstance(verdict, str)]


def judged(observation):
    """Each rule's verdict on NESTING, by name."""
    rules = [rule for rule in RULES if "nested" in rule.families]
    found = verdicts(rules, entry(NESTING), observation)
    return {rule.name: verdict for rule, verdict in zip(rules, found, strict=True)}


RIGHT_INNER = {"envelope": tag(envelope(7, error="result_too_large"))}
ONCE_EACH = {"probe": 1, "probe/probe": 1}


def test_the_right_answers_keep_every_rule():
    found = judged(observed(envelope("req-7", "x" * 20), RIGHT_INNER, ONCE_EACH))
    assert faults(found) == []
    assert found["correlation"] is None and found["budget"] is None and found["codes"] is None


def test_an_outer_envelope_with_the_inner_id_breaks_rule_1_alone():
    found = judged(observed(envelope(7, "x" * 20), RIGHT_INNER, ONCE_EACH))
    assert found["correlation"] == "the envelope's id was 7, not the request's id 'req-7'"
    assert faults(found) == ["correlation"]


def test_an_outer_value_measured_by_the_inner_budget_breaks_rule_4_alone():
    found = judged(observed(envelope("req-7", error="result_too_large"), RIGHT_INNER, ONCE_EACH))
    assert found["budget"] == "the call gave result_too_large for a value that fits the budget"
    assert faults(found) == ["budget"]


def test_a_fault_of_the_inner_call_is_said_with_where_that_call_was_made():
    wrong_id = {"envelope": tag(envelope("req-7", error="result_too_large"))}
    found = judged(observed(envelope("req-7", "x" * 20), wrong_id, ONCE_EACH))
    assert found["correlation"] == (
        "in the call of invoke_tool that the tool 'probe' made: "
        "the envelope's id was 'req-7', not the request's id 7"
    )


def test_a_refused_inner_call_breaks_rule_8_there_and_the_outer_outcome_steps_aside():
    refused = {"raised": {"type": "RuntimeError", "same_object": False}}
    outer = envelope("req-7", error="tool_failed")  # right, for a handler that raised
    found = judged(observed(outer, refused, {"probe": 1, "probe/probe": 0}))
    assert found["never_raises"] == (
        "in the call of invoke_tool that the tool 'probe' made: "
        "invoke_tool raising RuntimeError instead of returning an envelope"
    )
    assert found["codes"] is SKIP and found["budget"] is SKIP and found["fresh_value"] is SKIP
    assert found["called_once"] is None  # the outer handler ran once; the refusal is rule 8's
    assert found["correlation"] is None and found["shape"] is None


def test_an_inner_call_that_never_ran_is_no_level():
    nothing_ran = observed(envelope("req-7", error="unknown_tool"), RIGHT_INNER, {})
    nothing_ran.data["nested"] = []
    assert [level.at for level in levels(entry(NESTING), nothing_ran)] == [""]


@pytest.mark.parametrize(
    ("at", "words"),
    [
        ("probe", "the call of invoke_tool that the tool 'probe' made"),
        (
            "probe/other",
            "the call of invoke_tool that the tool 'other' made inside "
            "the call of invoke_tool that the tool 'probe' made",
        ),
    ],
)
def test_a_nested_call_is_named_by_the_tools_that_made_it(at, words):
    assert call_words(at) == words
