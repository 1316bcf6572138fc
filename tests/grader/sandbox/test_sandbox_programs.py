"""A program: calls that follow each other in one worker, into the one loaded submission.

The guard keeps the envelopes a program's earlier calls returned, as the caller does, and says
`same_envelope` when one comes back; a scenario outside a program compares with none of them.
"""

import pytest
from sandboxes import REFERENCE, reference_with, session_for

from grader.hidden.probes import raises, returns, scenario

pytestmark = [pytest.mark.bwrap]

# Keeps the first failure envelope of each id and gives it back: rule 9's fault.
CACHED = reference_with(
    """
_kept = {}


def invoke_tool(request, tools, *, max_result_bytes=4096):
    envelope = _honest(request, tools, max_result_bytes=max_result_bytes)
    if envelope["ok"]:
        return envelope
    return _kept.setdefault(request["id"], envelope)
"""
)
FAILING = scenario(raises("not_found"), request_id=7)


def program(*calls):
    return [{**call, "program": place, "outcome_only": True} for place, call in enumerate(calls)]


def run(server, source, scenarios):
    session = session_for(server, source, timeout=20.0, test_timeout=5.0)
    try:
        return session.run_batch(scenarios)
    finally:
        session.stop()


def test_an_envelope_given_back_to_a_later_call_of_the_program_is_seen(fork_server):
    first, second = run(fork_server, CACHED, program(FAILING, FAILING))
    assert not first["same_envelope"]
    assert second["same_envelope"]
    assert second.envelope == {"id": 7, "ok": False, "value": None, "error": "not_found"}


def test_the_reference_gives_each_call_of_a_program_a_new_envelope(fork_server):
    calls = program(FAILING, FAILING, scenario(returns(1), request_id=7), FAILING)
    assert not any(found["same_envelope"] for found in run(fork_server, REFERENCE, calls))


def test_a_new_program_forgets_the_envelopes_of_the_last(fork_server):
    # Two programs of one call each: the second starts afresh, so nothing is held against it.
    calls = [*program(FAILING), *program(FAILING)]
    assert [found["same_envelope"] for found in run(fork_server, CACHED, calls)] == [False, False]


def test_a_fresh_replay_neither_sees_nor_changes_what_the_sessions_worker_remembers(fork_server):
    session = session_for(fork_server, CACHED, timeout=20.0, test_timeout=5.0)
    try:
        session.run_batch(program(FAILING))
        worker = session.worker
        # Alone, in a worker loaded anew, the program gives new envelopes and then the kept one.
        alone = session.run_fresh(program(FAILING, FAILING))
        assert [found["same_envelope"] for found in alone] == [False, True]
        assert session.worker is worker
        # The session's own worker still keeps the envelope of its first call for id 7.
        again = session.run_batch([{**FAILING, "program": 1, "outcome_only": True}])
        assert again[0]["same_envelope"]
    finally:
        session.stop()


# Keeps every table it was given and falls back on it: a tool of an earlier call runs.
REMEMBERS = reference_with(
    """
_registry = {}


def invoke_tool(request, tools, *, max_result_bytes=4096):
    _registry.update(tools)
    return _honest(request, _registry, max_result_bytes=max_result_bytes)
"""
)


def test_a_tool_of_an_earlier_calls_table_is_counted_not_forbidden(fork_server):
    calls = program(scenario(returns(1)), {**scenario(returns(1)), "tools": {}})
    first, second = run(fork_server, REMEMBERS, calls)
    assert "stale_calls" not in first.data
    assert second.data["stale_calls"] == 1
    assert second["forbidden"] == []
    assert second.envelope == {"id": "req-7", "ok": False, "value": None, "error": "tool_failed"}
