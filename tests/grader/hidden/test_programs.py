"""A program's calls are each judged as a scenario of their own: a fault only in its own rule and
only at the call where it shows, said after the program's earlier calls.
"""

import itertools

from grader.hidden.judge.contract_model import expect
from grader.hidden.judge.contract_rules import RULES
from grader.hidden.judge.corpus import Entry, families
from grader.hidden.judge.judging import BATCH, earlier_calls, spans
from grader.hidden.judge.levels import verdicts
from grader.hidden.judge.shrink import shrunk_fault
from grader.hidden.judge.words import program_words
from grader.hidden.probes import raises, returns, returns_arguments, scenario
from grader.hidden.verdicts import handler_skipped, skipped_handler
from grader.sandbox.inside.picture import tag, untag
from grader.sandbox.observation import Observation

pytestmark = []

PROGRAM_RULES = [rule for rule in RULES if "programs" in rule.families]


def entry(built):
    expected = expect(built)
    return Entry(built, expected, untag(expected.value))


def envelope(request_id, value=None, error=None):
    return {"id": request_id, "ok": error is None, "value": value, "error": error}


def observed(answer, calls, same_envelope=False, received=None):
    return Observation(
        {
            "envelopes": [tag(answer)],
            "raised": None,
            "tools_changed": False,
            "reused_object": False,
            "same_envelope": same_envelope,
            "forbidden": [],
            "calls": calls,
            "received": received or {},
            "handler_raised": [],
        }
    )


def faults(built, observation):
    """The names of the rules that find a fault in one call of a program."""
    found = verdicts(PROGRAM_RULES, entry(built), observation)
    pairs = zip(PROGRAM_RULES, found, strict=True)
    return [rule.name for rule, verdict in pairs if isinstance(verdict, str)]


def at(place, built):
    return {**built, "program": place, "outcome_only": True, "received": True}


FAILING = at(1, scenario(raises("runtime_error"), request_id=7))
SUCCEEDING = at(4, scenario(returns({"n": 1}), request_id=5))
EMPTY = at(1, scenario(returns_arguments(), arguments={}))


def test_a_right_later_call_is_right():
    right = observed(envelope(7, error="tool_failed"), {"probe": 1})
    assert faults(FAILING, right) == []


def test_an_envelope_given_back_again_is_rule_9s_fault_alone():
    again = observed(envelope(7, error="tool_failed"), {"probe": 1}, same_envelope=True)
    assert faults(FAILING, again) == ["inputs_unchanged"]


def test_a_handler_a_breaker_skipped_is_rule_7s_fault_alone():
    skipped = observed(envelope(5, error="tool_failed"), {"probe": 0})
    assert faults(SUCCEEDING, skipped) == ["called_once"]


def test_a_kept_budget_is_rule_4s_fault_alone():
    measured = at(1, scenario(returns("x" * 20), max_result_bytes=22))
    kept = observed(envelope("req-7", error="result_too_large"), {"probe": 1})
    assert faults(measured, kept) == ["budget"]


def test_arguments_left_over_from_an_earlier_call_are_rule_5s_fault_alone():
    left_over = {"__changed__": [True]}
    polluted = observed(
        envelope("req-7", value=left_over), {"probe": 1}, received={"probe": [tag(left_over)]}
    )
    assert faults(EMPTY, polluted) == ["arguments_copied"]


def test_a_value_outside_the_vocabulary_after_good_ones_is_the_vocabularys_fault_alone():
    tuple_value = at(1, scenario(returns([(1, 2)])))
    trusted = observed(envelope("req-7", value=[[1, 2]]), {"probe": 1})
    assert faults(tuple_value, trusted) == ["vocabulary"]


def test_the_corpus_keeps_each_program_whole_and_in_order():
    entries = families()["programs"]
    assert entries[0].scenario["program"] == 0
    for previous, current in itertools.pairwise(entries):
        place = current.scenario["program"]
        assert place == 0 or place == previous.scenario["program"] + 1
    starts = [start for start, _ in spans(entries)]
    assert all(entries[start].scenario["program"] == 0 for start in starts)
    assert all(stop - start <= BATCH for start, stop in spans(entries))
    lengths = [len(earlier_calls("programs", i)) + 1 for i, e in enumerate(entries)]
    assert 2 <= max(lengths) <= 6


def test_a_failing_call_is_said_after_the_programs_earlier_calls():
    entries = families()["programs"]
    index = next(i for i, e in enumerate(entries) if e.scenario["program"] == 2)
    said = program_words(earlier_calls("programs", index), "the call gave tool_failed")
    assert said.startswith("after 2 earlier calls of invoke_tool into the same loaded code (1: ")
    assert said.endswith("the third call went wrong: the call gave tool_failed")


class Replaying:
    """A stand-in session whose code keeps the envelope of request 1 and gives it back later."""

    def __init__(self):
        self.replays = []

    def run_fresh(self, program):
        self.replays.append([call["request"]["id"] for call in program])
        kept = any(call["request"]["id"] == 1 for call in program[:-1])
        last = program[-1]["request"]["id"]
        answers = [
            observed(envelope(c["request"]["id"], error="not_found"), {"probe": 1})
            for c in program[:-1]
        ]
        return [*answers, observed(envelope(last, error="not_found"), {"probe": 1}, kept)]


def test_a_failing_program_is_shrunk_to_the_calls_its_fault_needs():
    calls = [entry(at(n, scenario(raises("not_found"), request_id=n + 1))) for n in range(4)]
    session = Replaying()
    rule = next(rule for rule in PROGRAM_RULES if rule.name == "inputs_unchanged")
    said = shrunk_fault(session, rule, calls)
    assert said.startswith("after 1 earlier call of invoke_tool into the same loaded code (1: id 1")
    assert session.replays == [[1, 2, 3, 4], [2, 3, 4], [1, 3, 4], [1, 4]]


def test_a_program_that_does_not_fail_alone_is_not_shrunk():
    calls = [entry(at(n, scenario(raises("not_found"), request_id=n + 2))) for n in range(3)]
    rule = next(rule for rule in PROGRAM_RULES if rule.name == "inputs_unchanged")
    assert shrunk_fault(Replaying(), rule, calls) is None


def test_a_tool_of_an_earlier_calls_table_breaks_rule_7_and_unknown_tool():
    unknown = at(1, {**scenario(returns(1)), "tools": {}})
    stale = observed(envelope("req-7", error="tool_failed"), {})
    stale.data["stale_calls"] = 1
    assert faults(unknown, stale) == ["codes", "called_once"]


def test_a_handler_is_skipped_only_when_an_answer_came_without_it():
    probe = scenario(returns(1))
    right = observed(envelope("req-7", value=1), {"probe": 1})
    skipped = observed(envelope("req-7", error="tool_failed"), {"probe": 0})
    taken_for_unknown = observed(envelope("req-7", error="unknown_tool"), {"probe": 0})
    assert not handler_skipped(probe, right)
    assert handler_skipped(probe, skipped)
    assert not handler_skipped(probe, taken_for_unknown)  # the code table judges unknown_tool
    assert not handler_skipped({**probe, "tools": {}}, skipped)  # no handler to run


class Fresh:
    """A stand-in session: its scenarios' observations, and one fresh replay's answer."""

    def __init__(self, probe, seen, alone):
        self.scenarios, self.observed, self.memo = {"k": probe}, {"k": seen}, {}
        self.alone, self.replays = alone, 0

    def run_fresh(self, scenarios):
        self.replays += 1
        return [self.alone]


def test_a_test_steps_aside_only_for_a_handler_that_runs_when_the_call_is_made_alone():
    probe = scenario(returns(1))
    skipped = observed(envelope("req-7", error="tool_failed"), {"probe": 0})
    breaker = Fresh(probe, skipped, observed(envelope("req-7", value=1), {"probe": 1}))
    assert skipped_handler(breaker, {"k"}) == "k"
    assert skipped_handler(breaker, {"k"}) == "k"
    assert breaker.replays == 1  # once per scenario
    refuses = Fresh(probe, skipped, skipped)  # skipped for its own inputs: no stepping aside
    assert skipped_handler(refuses, {"k"}) is None
