"""Scenario builders and checks shared by the hidden tests, all on the trusted side.

A scenario is plain data: the request, the tools table as handler descriptions, the byte budget
and what to observe. Values that JSON cannot carry (tuples, NaN, lone surrogates) travel as
tagged values; the few it cannot even describe (cycles, IntEnum members) as named makers.
"""

import json

from grader.sandbox.inside.picture import Limit, Opaque, tag

# Stands for private context in exception messages; it must never reach an envelope.
MARKER = "PRIVATE-9c1e-secret"
TOOL = "probe"
DEFAULT = object()


def returns(value):
    """A handler that returns a new copy of `value` each call."""
    return {"does": "return", "value": tag(value)}


def returns_made(maker, **options):
    """A handler that returns a value only the worker can build, such as a cycle."""
    return {"does": "return", "value": {"make": maker, **options}}


def raises(kind, message=MARKER):
    """A handler that raises a new exception of the named kind, carrying `message`."""
    return {"does": "raise", "exception": kind, "message": message}


def mutates(value=None):
    """A handler that changes its arguments at every depth, then returns `value`."""
    return {"does": "mutate", "value": tag(value)}


def returns_fixture(value):
    """A handler that returns the very object it holds, as a careless tool hands out its data."""
    return {"does": "return_fixture", "fixture": tag(value)}


def returns_arguments():
    """A handler that returns the argument dict it was given."""
    return {"does": "return_arguments"}


def flaky(value):
    """A handler that fails on its first call and would succeed on a second."""
    return {"does": "flaky", "exception": "runtime_error", "message": MARKER, "value": tag(value)}


def scenario(handler, *, request_id="req-7", arguments=None, max_result_bytes=DEFAULT, **more):
    """Return a scenario calling the tool `probe`, described by `handler`, once."""
    request = {"id": request_id, "tool": TOOL, "arguments": arguments or {"query": "q"}}
    data = {"request": request, "tools": {TOOL: handler}}
    if max_result_bytes is not DEFAULT:
        data["max_result_bytes"] = max_result_bytes
    data.update(more)
    return data


def unknown_tool_scenario(request_id="req-7", tool="missing"):
    """Return a scenario whose tool is not in a table of two counted tools."""
    tools = {"probe": returns({"n": 1}), "other": returns(None)}
    request = {"id": request_id, "tool": tool, "arguments": {}}
    return {"request": request, "tools": tools}


def encoded_size(value):
    """The contract's size of a value: UTF-8 bytes of its JSON text with the default separators."""
    return len(json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8"))


def strings_in(value):
    """Yield every string in a decoded value: keys, items and the type names of foreign objects."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings_in(key)
            yield from strings_in(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from strings_in(item)
    elif isinstance(value, Opaque):
        yield value.type_name
        yield from strings_in(value.content)
    elif isinstance(value, Limit):
        yield value.prefix


def describe_raise(observation):
    """A sentence for assertion messages when invoke_tool raised instead of returning."""
    raised = observation.raised
    return f"invoke_tool raised {raised['type']}" if raised else "invoke_tool returned"
