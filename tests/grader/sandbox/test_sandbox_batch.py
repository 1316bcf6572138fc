"""A batch gives what each of its scenarios gives alone, in one request, holding nothing after."""

import pytest
from sandboxes import REFERENCE, reference_with, session_for

from grader.hidden.probes import flaky, mutates, raises, returns, returns_made, scenario
from grader.sandbox.problems import SandboxForbidden, SandboxProblem

pytestmark = [pytest.mark.bwrap]

MIXED = [
    scenario(returns({"n": [1, 2.5, None]}), request_id=0),
    scenario(raises("not_found"), request_id="r"),
    scenario(raises("keyboard_interrupt")),
    {**scenario(returns(1)), "tools": {"other": returns(2)}},
    scenario(flaky({"later": True}), repeat=2),
    scenario(returns(("a", "tuple"))),
    scenario(returns("\u00e9" * 10), max_result_bytes=5),
]
CRASHES_FOR_ID_13 = """
def invoke_tool(request, tools, **options):
    if request["id"] == 13:
        import os
        os._exit(3)
    return _honest(request, tools, **options)
"""
FORBIDDEN = """
def invoke_tool(request, tools, **options):
    import gc
    gc.get_objects()
    return _honest(request, tools, **options)
"""


def facts(observation):
    """What both ways of running must agree on: the envelopes, the raise, the calls."""
    return observation.envelopes, observation.raised, observation["calls"]


def test_a_batch_observes_what_single_runs_observe(fork_server):
    alone = session_for(fork_server, REFERENCE)
    together = session_for(fork_server, REFERENCE, serial=1)
    try:
        singles = [facts(alone.call(item)) for item in MIXED]
        batched = [facts(observation) for observation in together.run_batch(MIXED)]
    finally:
        alone.stop()
        together.stop()
    assert batched == singles
    assert batched[4][2] == {"probe": 2}  # the guard counted both calls of the flaky tool
    assert batched[3][2] == {"other": 0}  # and none for an unknown tool


def test_arguments_are_pictured_only_for_scenarios_that_ask(fork_server):
    session = session_for(fork_server, REFERENCE)
    nested = {"deep": [{"x": 1}]}
    asked = {**scenario(mutates(1), arguments=nested), "received": True}
    plain = scenario(mutates(1), arguments=nested)
    try:
        with_pictures, without = session.run_batch([asked, plain])
    finally:
        session.stop()
    assert with_pictures["received"] == {"probe": [{"t": "dict", "v": [["deep", [nested_x()]]]}]}
    assert without["received"] == {}
    assert without["calls"] == {"probe": 1}
    assert with_pictures["request_changed"] is False


def nested_x():
    return {"t": "dict", "v": [["x", 1]]}


def test_an_outcome_only_scenario_skips_the_walks(fork_server):
    session = session_for(fork_server, REFERENCE)
    try:
        (observation,) = session.run_batch([{**scenario(returns([1])), "outcome_only": True}])
    finally:
        session.stop()
    assert observation.envelope == {"id": "req-7", "ok": True, "value": [1], "error": None}
    assert "request_changed" not in observation.data
    assert "value_shared" not in observation.data


def test_a_scenario_that_kills_the_worker_ends_its_batch_and_the_next_batch_starts_afresh(
    fork_server,
):
    session = session_for(fork_server, reference_with(CRASHES_FOR_ID_13))
    try:
        with pytest.raises(SandboxProblem):
            session.run_batch([scenario(returns(1), request_id=n) for n in range(12, 15)])
        (after,) = session.run_batch([scenario(returns(1), request_id=14)])
    finally:
        session.stop()
    assert after.envelope == {"id": 14, "ok": True, "value": 1, "error": None}


def test_a_forbidden_operation_in_a_batch_is_labelled_forbidden(fork_server):
    session = session_for(fork_server, reference_with(FORBIDDEN))
    try:
        with pytest.raises(SandboxForbidden):
            session.run_batch([scenario(returns(1))])
    finally:
        session.stop()


def test_what_a_batch_held_is_given_back_when_its_block_ends(fork_server):
    session = session_for(fork_server, REFERENCE)
    big = [scenario(returns("x" * 5000), request_id=n) for n in range(20)]
    try:
        before = session.allowance.held_left
        with session.batch(big) as observations:
            during = session.allowance.held_left
            assert len(observations) == 20
        after = session.allowance.held_left
    finally:
        session.stop()
    assert during < before - 20 * 1000
    assert after == before


def test_a_coroutine_a_tool_handed_out_is_closed_without_a_warning(fork_server):
    session = session_for(fork_server, REFERENCE)
    made = {"make": "placed", "at": [], "item": "coroutine"}
    try:
        (observation,) = session.run_batch([scenario({"does": "return", "value": made})])
        printed = session.take_output()
    finally:
        session.stop()
    assert observation.envelope["error"] == "invalid_result"
    assert "never awaited" not in printed


def test_a_coroutine_placed_in_a_value_is_built_where_the_recipe_says():
    from grader.sandbox.inside.kinds import build

    value = build({"make": "placed", "value": [[1], 2], "at": [0, 1], "item": "coroutine"})
    inner = value[0][1]
    try:
        assert value[0][0] == 1 and value[1] == 2
        assert type(inner).__name__ == "coroutine"
    finally:
        inner.close()
    assert build(returns_made("shared_list")["value"])["first"] == [1, "two", {"three": 3.0}]


PRINTS_ITS_ID = """
def invoke_tool(request, tools, **options):
    print("scenario", request["id"])
    return _honest(request, tools, **options)
"""


def test_what_every_scenario_of_a_batch_printed_is_in_its_output(fork_server):
    session = session_for(fork_server, reference_with(PRINTS_ITS_ID))
    try:
        session.run_batch([scenario(returns(1), request_id=n) for n in range(3)])
        printed = session.take_output()
    finally:
        session.stop()
    assert [line for line in printed.splitlines() if line.startswith("scenario")] == [
        "scenario 0",
        "scenario 1",
        "scenario 2",
    ]


def test_only_a_value_a_maker_built_is_walked_for_coroutines():
    from grader.sandbox.inside.kinds import made_by_maker

    assert made_by_maker({"make": "placed", "at": [], "item": "coroutine"})
    assert made_by_maker(returns_made("shared_list")["value"])
    assert not made_by_maker({"t": "dict", "v": [["make", 1]]})
    assert not made_by_maker([{"make": "coroutine"}])
