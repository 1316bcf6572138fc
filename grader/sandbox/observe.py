"""Run one scenario against a submission's `invoke_tool` and describe what happened, as plain data.

Everything a hidden test may want to know is measured here, inside the worker, where the objects
live: the envelopes (as tagged values), what each handler saw, whether the request or the tools
changed, and whether the returned value shares objects with anything the handlers handed out.
The trusted side decides pass or fail from this description alone.
"""

import builtins
import sys

from grader.sandbox.scenarios import build_tools, mutate_deeply
from grader.sandbox.values import tag, type_name

# Built before student code runs; see grader/sandbox/values.py for why built-ins are copied.
__builtins__ = dict(vars(builtins))

_SCALARS = (type(None), bool, int, float, str)
_SEQUENCES = (list, tuple, set, frozenset)
_WALK_LIMIT = 100_000
# Deep enough for the tagged picture of any value the pictures carry, whatever the student set.
_RECURSION_FOR_REPORTS = 2_000


def run_scenario(scenario, invoke_tool):
    """Call `invoke_tool` as the scenario says and return the observation."""
    tools = build_tools(scenario["tools"])
    handlers = dict(tools)
    request = scenario["request"]
    request_before = tag(request)
    keyword = {}
    if "max_result_bytes" in scenario:
        keyword["max_result_bytes"] = scenario["max_result_bytes"]
    envelopes, raised = [], None
    for _ in range(scenario.get("repeat", 1)):
        try:
            envelopes.append(invoke_tool(request, tools, **keyword))
        except BaseException as error:  # any escape is data for the tests
            raised = error
            break
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _RECURSION_FOR_REPORTS))
    try:
        return _observe(scenario, request, request_before, tools, handlers, envelopes, raised)
    finally:
        sys.setrecursionlimit(limit)


def _observe(scenario, request, request_before, tools, handlers, envelopes, raised):
    """Describe the outcome; the order matters, because the value is mutated only at the end."""
    observation = {
        "envelopes": [tag(envelope) for envelope in envelopes],
        "raised": _describe_raised(raised, handlers),
        "calls": {name: handler.calls for name, handler in handlers.items()},
        "received": {name: handler.received for name, handler in handlers.items()},
        "handler_raised": [
            type_name(type(error)) for handler in handlers.values() for error in handler.raised
        ],
        "request_after": tag(request),
        "tools_changed": _tools_changed(tools, handlers),
        "reused_object": any(_is_input(envelope, request, tools) for envelope in envelopes),
        "same_envelope": len(envelopes) > 1 and envelopes[0] is envelopes[1],
        "value_shared": _value_shared(envelopes, request, handlers),
    }
    observation["request_changed"] = observation["request_after"] != request_before
    if scenario.get("mutate_value"):
        for envelope in envelopes:
            if issubclass(type(envelope), dict):
                mutate_deeply(dict.get(envelope, "value"))
        observation["fixtures_after"] = {
            name: tag(handler.fixture) for name, handler in handlers.items()
        }
        observation["request_after_mutation"] = tag(request)
    return observation


def _describe_raised(raised, handlers):
    if raised is None:
        return None
    same = any(raised is error for handler in handlers.values() for error in handler.raised)
    return {"type": type_name(type(raised)), "same_object": same}


def _tools_changed(tools, handlers):
    if type(tools) is not dict or list(dict.keys(tools)) != list(handlers):
        return True
    return any(dict.get(tools, name) is not handler for name, handler in handlers.items())


def _is_input(envelope, request, tools):
    arguments = request.get("arguments")
    return envelope is request or envelope is tools or envelope is arguments


def _containers(value):
    """Return the ids of every non-scalar object reachable from `value` through lists and dicts."""
    found, stack = set(), [value]
    while stack and len(found) < _WALK_LIMIT:
        node = stack.pop()
        kind = type(node)
        if kind in _SCALARS or id(node) in found:
            continue
        found.add(id(node))
        if issubclass(kind, dict):
            stack.extend(dict.keys(node))
            stack.extend(dict.values(node))
        else:
            base = next((b for b in _SEQUENCES if issubclass(kind, b)), None)
            if base is not None:
                stack.extend(base.__iter__(node))
    return found


def _value_shared(envelopes, request, handlers):
    """Say whether a returned value shares an object with the request or a handler's objects."""
    held = _containers(request)
    for handler in handlers.values():
        held |= _containers(handler.fixture) | _containers(handler.returned)
        held.discard(id(handler.returned))
    for envelope in envelopes:
        if issubclass(type(envelope), dict) and held & _containers(dict.get(envelope, "value")):
            return True
    return False
