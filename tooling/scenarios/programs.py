"""Programs: a few calls of invoke_tool, one after another, into one loaded copy of the submission.

A real agent loop loads the code once and calls invoke_tool again and again, with other ids,
tools, budgets and arguments each time. The contract says nothing of earlier calls, so every
call of a program must give what it would give alone (contract_model.expect of that call): a
program only shows what a submission remembers between calls (a budget or a table kept from the
first call, a mutable default, a cached envelope, a breaker that stops calling a handler).

The programs are drawn by a composite strategy over a pool of ids, tools and arguments shared by
the program's calls (not a RuleBasedStateMachine: the model keeps no state between calls, so there
is no state to step through; the corpus needs each program as plain data, pinned, and a state
machine runs its steps against a system under test while drawing, which the generator has none
of). A program's calls are stamped with their place in it ("program": 0 starts one); the corpus
keeps them together, in order, and a family's batch never splits one (hidden/judge/judging.py).
"""

from typing import Any

from hypothesis import strategies as st

from grader.hidden.probes import MARKER, ROOMY, TOOL
from grader.sandbox.handlers import Scenario
from grader.sandbox.inside.picture import tag
from grader.sandbox.inside.protocol import ToolSpec
from tooling.scenarios.strategies import json_value, request_id, returns, scenario

Program = list[Scenario]
OTHER = "other"  # a second tool of the table
# Kinds a handler of a program raises: the four codes' classes and one that must propagate.
KINDS = ("invalid_input", "permission_denied", "not_found", "runtime_error", "key_error")
BUDGETS = (None, None, 0, 8, 32, ROOMY)  # None: the call is given no budget, so 4096
# Arguments that the calls of a program share: none at all, flat, nested.
ARGUMENTS: list[dict[str, Any]] = [{}, {}, {"q": 1}, {"q": [1, {"r": "s"}]}]
# An id as long as a trace id: a cache keyed by the id meets the same one again.
LONG_ID = "call-" + "0123456789abcdef" * 4
VALUE = "x" * 20  # 22 bytes as JSON


def raising(kind: str) -> ToolSpec:
    """A tool raising `kind` with a private message."""
    return {"does": "raise", "exception": kind, "message": MARKER}


@st.composite
def call_handler(draw: st.DrawFn) -> ToolSpec:
    """A tool of a program: it returns, raises, changes or gives back its arguments or a fixture."""
    does = draw(st.sampled_from(["return", "return", "raise", "mutate", "arguments", "fixture"]))
    if does == "return":
        return returns(draw(json_value))
    if does == "raise":
        return raising(draw(st.sampled_from(KINDS)))
    if does == "mutate":
        return {"does": "mutate", "value": tag(draw(json_value))}
    if does == "arguments":
        return {"does": "return_arguments"}
    return {"does": "return_fixture", "fixture": tag(draw(st.lists(json_value, max_size=3)))}


@st.composite
def program(draw: st.DrawFn) -> Program:
    """Two to six calls sharing ids, tools and arguments, each with its own table and budget."""
    ids = draw(st.lists(request_id, min_size=1, max_size=2))
    handlers = draw(st.lists(call_handler(), min_size=1, max_size=3))
    calls: Program = []
    for _ in range(draw(st.integers(2, 6))):
        tools = {TOOL: draw(st.sampled_from(handlers))}
        if draw(st.booleans()):
            tools[OTHER] = draw(st.sampled_from(handlers))
        asked = draw(st.sampled_from([TOOL, TOOL, TOOL, OTHER, "missing"]))
        budget = draw(st.sampled_from(BUDGETS))
        more: dict[str, Any] = {} if budget is None else {"max_result_bytes": budget}
        arguments = draw(st.sampled_from(ARGUMENTS))
        calls.append(
            scenario(draw(st.sampled_from(ids)), tools, tool=asked, arguments=arguments, **more)
        )
    return calls


def stamped(calls: Program) -> Program:
    """Return the calls as the corpus keeps them: each with its place in the program, observed.

    Each observes everything and what its handler received: rule 5 reads it on every call, and
    needs to know whether invoke_tool changed the request itself (rule 9's fault) to judge it.
    """
    return [{**call, "program": place, "received": True} for place, call in enumerate(calls)]


def _call(request_id: object, spec: ToolSpec | None, **more: Any) -> Scenario:
    tools = {} if spec is None else {TOOL: spec}
    return scenario(request_id, tools, **more)


def pinned() -> tuple[Program, ...]:
    """Programs written from the contract for what a submission may remember between calls."""
    fits, other = returns({"n": 1}), returns({"n": 2})
    value = returns(VALUE)
    failing = raising("runtime_error")
    built: list[Program] = [
        # A budget that changes between calls, both ways: each call is measured by its own.
        [
            _call(1, value, max_result_bytes=ROOMY),
            _call(2, value, max_result_bytes=8),
            _call(3, value),
        ],
        [_call(1, value, max_result_bytes=8), _call(2, value, max_result_bytes=22)],
        # A tool that fails, then succeeds, and the reverse: each call runs its own handler.
        [
            _call(1, failing),
            _call(2, failing),
            _call(3, failing),
            _call(4, failing),
            _call(5, fits),
        ],
        [_call(1, fits), _call(2, raising("not_found")), _call(3, fits)],
        [_call(n, fits) for n in range(1, 7)],
        [_call(1, raising("keyboard_interrupt")), _call(2, fits)],
        # One tool, then another in its place, then none: each call reads its own table.
        [_call(1, fits), _call(2, other), _call(3, None), _call(4, fits)],
        [_call(1, None), _call(2, fits)],
        [_call(1, fits), scenario(2, {OTHER: fits})],
        [scenario(1, {"*": fits, "default": other}), _call(2, fits)],
        # A value outside the vocabulary after good ones from the same tool.
        [_call(1, fits), _call(2, returns([(1, 2)])), _call(3, returns({"s": {1}}))],
        # Arguments a handler changed, then the same arguments again: a new copy each call.
        [
            _call(1, {"does": "mutate"}, arguments={}),
            _call(2, {"does": "return_arguments"}, arguments={}),
        ],
        [
            _call(1, {"does": "mutate"}, arguments={"q": [1]}),
            _call(2, {"does": "return_arguments"}, arguments={"q": [1]}),
        ],
        [
            _call(1, {"does": "return_arguments"}, arguments={"_meta": {"trace": 1}, "q": "x"}),
            _call(2, {"does": "return_arguments"}, arguments={"id": 9, "tool": "x", "q": "x"}),
        ],
        # A tool that hands out its own object, twice: each value is a new one.
        [_call(1, {"does": "return_fixture", "fixture": tag([{"a": [1]}])}) for _ in range(2)],
    ]
    # The same id again, failing each time, and after a success: a new envelope every call.
    for same in (7, "req-7", LONG_ID):
        built.append([_call(same, raising("not_found")), _call(same, raising("not_found"))])
        built.append([_call(same, None), _call(same, None)])
        built.append([_call(same, fits), _call(same, failing), _call(same, failing)])
    return tuple(built)
