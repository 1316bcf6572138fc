"""Describe what one scenario showed, from the guard's records, as plain data.

The guard keeps every object of a scenario: the request and tools it handed to `invoke_tool`,
what each tool call returned or raised, and what `invoke_tool` returned or raised. Facts that
only the objects themselves can show (did an envelope reuse the request, does a value share a
list with a tool's data) are measured here; calls and received arguments are counted on the
trusted side, which merges both into one observation.
"""

import builtins
import sys

from grader.sandbox.inside.kinds import mutate_deeply
from grader.sandbox.inside.picture import tag, type_name

# Private built-ins: see grader/sandbox/inside/picture.py.
__builtins__ = dict(vars(builtins))

_SCALARS = (type(None), bool, int, float, str)
_SEQUENCES = (list, tuple, set, frozenset)
_WALK_LIMIT = 100_000
# Deep enough for the tagged picture of any value the pictures carry, whatever the student set.
_RECURSION_FOR_REPORTS = 2_000


class Records:
    """Everything one scenario handed out and got back, kept by the guard."""

    def __init__(self, request, options):
        self.request = request
        self.request_before = tag(request)
        self.options = options
        self.fixtures = {}  # tool name -> the very object a tool holds
        self.tools = None  # the dict given to invoke_tool
        self.stubs = {}  # tool name -> the callable put in it
        self.handed = []  # every value a tool call returned
        self.thrown = []  # every exception a tool call raised
        self.envelopes = []
        self.raised = None
        self.observation = None  # described as invoke_tool returns, sent at the scenario's end
        self.released = []  # what describing let go of, for the loop to free
        self.arguments_shared = False  # a tool was given an object the request holds


def describe(records, released):
    """Return the worker's part of the observation; changes the envelopes if asked to."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _RECURSION_FOR_REPORTS))
    try:
        return _describe(records, released)
    finally:
        sys.setrecursionlimit(limit)


def _describe(records, released):
    envelopes, request = records.envelopes, records.request
    observation = {
        "envelopes": [tag(envelope) for envelope in envelopes],
        "raised": _describe_raised(records),
        "request_after": tag(request),
        "tools_changed": _tools_changed(records),
        "reused_object": any(_is_input(envelope, records) for envelope in envelopes),
        "same_envelope": len(envelopes) > 1 and envelopes[0] is envelopes[1],
        "value_shared": _value_shared(records),
        "value_reused": _value_reused(envelopes),
    }
    observation["request_changed"] = observation["request_after"] != records.request_before
    observation["arguments_shared"] = records.arguments_shared
    if records.options.get("mutate_value"):
        for envelope in envelopes:
            if issubclass(type(envelope), dict):
                mutate_deeply(dict.get(envelope, "value"), released)
        observation["fixtures_after"] = {
            name: tag(fixture) for name, fixture in records.fixtures.items()
        }
        observation["request_after_mutation"] = tag(request)
    return observation


def _describe_raised(records):
    raised = records.raised
    if raised is None:
        return None
    same = any(raised is error for error in records.thrown)
    return {"type": type_name(type(raised)), "same_object": same}


def _tools_changed(records):
    tools, stubs = records.tools, records.stubs
    if type(tools) is not dict or list(dict.keys(tools)) != list(stubs):
        return True
    return any(dict.get(tools, name) is not stub for name, stub in stubs.items())


def _is_input(envelope, records):
    request = records.request
    arguments = dict.get(request, "arguments") if type(request) is dict else None
    return envelope is request or envelope is records.tools or envelope is arguments


def shares_with_request(records, arguments):
    """Say whether `arguments` (given to a tool) holds a list or dict the request holds."""
    return bool(_containers(arguments) & _containers(records.request))


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


def _value_shared(records):
    """Say whether a returned value shares an object with the request or a tool's objects."""
    held = _containers(records.request)
    for fixture in records.fixtures.values():
        held |= _containers(fixture)
    for value in records.handed:
        # The returned value itself counts: the envelope must carry a fresh copy of it.
        held |= _containers(value)
    return any(held & _value_containers(envelope) for envelope in records.envelopes)


def _value_containers(envelope):
    """Return the ids of the lists and dicts in an envelope's value (none for a non-dict)."""
    if not issubclass(type(envelope), dict):
        return set()
    return _containers(dict.get(envelope, "value"))


def _value_reused(envelopes):
    """Say whether two calls' values share a list or dict (a cache, a memo kept across calls)."""
    seen = set()
    for envelope in envelopes:
        found = _value_containers(envelope)
        if seen & found:
            return True
        seen |= found
    return False
