"""Scenario builders and checks shared by the hidden tests, all on the trusted side.

A scenario is plain data: the request, the tools table as handler descriptions, the byte budget
and what to observe. Values that JSON cannot carry (tuples, NaN, lone surrogates) travel as
tagged values; the few it cannot even describe (cycles, IntEnum members) as named makers.
"""

import json

import pytest

from grader.model import NotJudged
from grader.sandbox.inside.picture import Limit, Opaque, tag
from grader.sandbox.values import same_json

# Stands for private context in exception messages; it must never reach an envelope.
MARKER = "PRIVATE-9c1e-secret"
TOOL = "probe"
DEFAULT = object()
ROOMY = 10**7  # a budget no value of the hidden tests comes near


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


def cases(table):
    """Return pytest parameters from {id: (words, value)}: each case named in a student's words.

    The words ("for the id 0") complete the test's one-line description in every report, so a
    student learns which case failed without seeing the hidden code.
    """
    return [
        pytest.param(value, id=name, marks=pytest.mark.case(words))
        for name, (words, value) in table.items()
    ]


def returned(observation):
    """Return the envelope; without one, step aside: raising for a handler is rule 8's case."""
    if observation.envelope is None:
        raise NotJudged(f"{describe_raise(observation)}, which the error_codes category judges")
    return observation.envelope


def field_of(observation, name):
    """Return one field of the envelope; step aside when there is none to read."""
    envelope = returned(observation)
    if not isinstance(envelope, dict) or name not in envelope:
        raise NotJudged(f"the envelope has no {name} field, which the envelope category judges")
    return envelope[name]


def outcome_of(observation):
    """Return "success" or the failure's code, read as leniently as the envelope allows.

    Whether `ok` is exactly a bool and `error` exactly None on success are the envelope
    category's questions; every other category only asks which way the call went.
    """
    ok = _plain(field_of(observation, "ok"))
    if ok == True:  # noqa: E712 - 1 and 1.0 read as True here; the envelope's tests ask for True
        return "success"
    if ok == False:  # noqa: E712
        return _plain(field_of(observation, "error"))
    raise NotJudged("the envelope's ok is neither true nor false, which the envelope judges")


def _plain(field):
    """Read a subclass of int or str (an IntEnum, a StrEnum) as its plain content."""
    if isinstance(field, Opaque) and field.base in ("bool", "int", "str"):
        return field.content
    return field


def code_of(observation):
    """Return the error field read plainly (a StrEnum member as its text), or why there is none.

    For error_codes, raising is its own rule 8, so a call that raised fails rather than steps
    aside; whether the code is an exact str is the envelope's question.
    """
    if observation.envelope is None:
        return describe_raise(observation)
    return _plain(observation.field("error"))


def loosely_equal(value, expected):
    """Say whether `value` is `expected`, or a subclass instance holding it (types are rule 6's)."""
    if isinstance(value, Opaque):
        return value.content == expected
    return same_json(value, expected)


def failure_of(observation):
    """Return the failure's code; a call that did not fail steps aside (error_codes judges it)."""
    outcome = outcome_of(observation)
    if outcome == "success":
        raise NotJudged("the call succeeded although the handler raised, which error_codes judges")
    return outcome


def value_of(observation):
    """Return a success's value, or a description of what came back instead of one.

    Ownership's values are plain data that no rule refuses, so nothing here steps aside:
    stepping aside would let a submission dodge an ownership test by refusing or raising for
    the very results that would show a shared object.
    """
    if observation.envelope is None:
        return describe_raise(observation)
    return observation.field("value")
