"""A tool that calls invoke_tool itself: the worker makes the inner call and reports it honestly.

The guard hands the stand-in an order; the stand-in (loop.nest) calls the submission's
invoke_tool outside the guard and reports what it gave. A report from anywhere else, or from a
nest whose code a submission replaced, is refused as `forbidden`; honest nesting is not.
"""

import pytest
from sandboxes import REFERENCE, reference_with, session_for

from grader.hidden.probes import nests, raises, returns, scenario
from grader.sandbox.handlers import RecipeError
from grader.sandbox.problems import SandboxProblem

pytestmark = [pytest.mark.bwrap]

INNER = scenario(returns({"n": 1}), request_id=7, max_result_bytes=5)
TWICE_NESTED = scenario(
    nests(scenario(nests(scenario(returns([1]), request_id="deepest")), request_id=2)),
    request_id=1,
)
HONEST = [
    scenario(nests(INNER, value="done"), request_id="outer"),
    scenario(nests(scenario(returns("abc"), request_id=7), then="return_inner")),
    scenario(nests(scenario(raises("not_found")), then="raise", exception="permission_denied")),
    scenario(nests(scenario(raises("keyboard_interrupt")))),
    TWICE_NESTED,
]


def run(server, source, scenarios):
    """Run `scenarios` in one batch; return their observations, or the status it ended with."""
    session = session_for(server, source, timeout=20.0, test_timeout=5.0)
    try:
        return session.run_batch(scenarios)
    except SandboxProblem as problem:
        return problem.status
    finally:
        session.stop()


def envelope(report):
    """The dict a nested report pictured, as (key, value) pairs."""
    return dict(report["envelope"]["v"])


def test_each_call_is_reported_with_its_own_request_budget_and_tools(fork_server):
    budget, inner_value, raising, interrupted, twice = run(fork_server, REFERENCE, HONEST)
    assert budget.envelope == {"id": "outer", "ok": True, "value": "done", "error": None}
    [report] = budget.data["nested"]
    assert report["at"] == "probe"
    assert envelope(report) == {"id": 7, "ok": False, "value": None, "error": "result_too_large"}
    assert budget["calls"] == {"probe": 1, "probe/probe": 1}
    assert inner_value.envelope["value"] == "abc"
    assert raising.envelope["error"] == "permission_denied"
    assert raising["handler_raised"] == ["NotFoundError", "PermissionDeniedError"]
    # The inner handler's KeyboardInterrupt leaves both calls, the very same object.
    assert interrupted.raised == {"type": "KeyboardInterrupt", "same_object": True, "changed": []}
    assert interrupted.data["nested"][0]["raised"]["same_object"]
    assert [report["at"] for report in twice.data["nested"]] == ["probe/probe", "probe"]
    assert twice["calls"] == {"probe": 1, "probe/probe": 1, "probe/probe/probe": 1}


def test_an_inner_envelope_returned_again_by_the_outer_call_is_the_same_envelope(fork_server):
    reused = reference_with(
        "_last = {}\n\n"
        "def invoke_tool(request, tools, **options):\n"
        "    _last.clear()\n"
        "    _last.update(_honest(request, tools, **options))\n"
        "    return _last\n"
    )
    [observation] = run(fork_server, reused, HONEST[:1])
    assert observation["same_envelope"]


# The order is in loop.nest's frame while the inner call runs; the inner call takes it.
TAKES_THE_ORDER = """
import sys


def order_below():
    frame = sys._getframe(1)
    while frame is not None and "order" not in frame.f_locals:
        frame = frame.f_back
    return frame.f_locals["order"], frame.f_locals["audit"]
"""
FORGES_A_REPORT = (
    TAKES_THE_ORDER
    + """
def invoke_tool(request, tools, **options):
    if request["id"] == 7:
        order, audit = order_below()
        forged = {"id": 7, "ok": True, "value": "forged", "error": None}
        audit("grader.nested", [None, None, 0], order, "returned", forged)
    return _honest(request, tools, **options)
"""
)
# Calls loop.nest itself, from its own frame, with the very order: a second inner call.
CALLS_NEST_ITSELF = (
    TAKES_THE_ORDER
    + """
_forging = []


def invoke_tool(request, tools, **options):
    if request["id"] == 7 and not _forging:
        _forging.append(True)
        order, audit = order_below()
        stand_in = next(iter(tools.values()))
        stand_in.__globals__["nest"](order, audit)
    return _honest(request, tools, **options)
"""
)
# Gives loop.nest other code, which reports a forged envelope from the stand-in's own call.
REPLACES_NEST = """
def forged_nest(order, audit):
    box = [None, None, 0]
    forged = {"id": 7, "ok": True, "value": "forged", "error": None}
    audit("grader.nested", box, order, "returned", forged)
    return box[0]


def invoke_tool(request, tools, **options):
    for stand_in in tools.values():
        stand_in.__globals__["nest"].__code__ = forged_nest.__code__
    return _honest(request, tools, **options)
"""
SENDS_A_REPORT_OF_ITS_OWN = """
import sys


def invoke_tool(request, tools, **options):
    sys.audit("grader.nested", [None, None, 0], ("an", "order"), "returned", {})
    return _honest(request, tools, **options)
"""


@pytest.mark.parametrize(
    "cheat", [FORGES_A_REPORT, CALLS_NEST_ITSELF, REPLACES_NEST, SENDS_A_REPORT_OF_ITS_OWN]
)
def test_a_report_not_made_by_the_stand_in_that_was_ordered_is_refused(fork_server, cheat):
    assert run(fork_server, reference_with(cheat), HONEST[:1]) == "forbidden"


def test_walking_down_to_the_stand_ins_frames_is_allowed(fork_server):
    walking = reference_with(
        TAKES_THE_ORDER + "\ndef invoke_tool(request, tools, **options):\n"
        "    if request['id'] == 7:\n"
        "        order_below()\n"
        "    return _honest(request, tools, **options)\n"
    )
    [observation] = run(fork_server, walking, HONEST[:1])
    assert observation.envelope["value"] == "done"


def test_a_tool_that_calls_invoke_tool_runs_only_in_a_batch(fork_server):
    session = session_for(fork_server, REFERENCE)
    try:
        with pytest.raises(RecipeError, match="only in a batch"):
            session.call(HONEST[0])
    finally:
        session.stop()
