"""Describe what one scenario showed, from the guard's records, as plain data.

The guard keeps every object of a scenario: the request and tools it handed to `invoke_tool`,
what each tool call returned or raised, and what `invoke_tool` returned or raised. Facts that
only the objects themselves can show (did an envelope reuse the request, does a value share a
list with a tool's data) are measured here; calls and received arguments are counted on the
trusted side, which merges both into one observation.
"""

from __future__ import annotations

import builtins
import sys
import types
from typing import TYPE_CHECKING, Any

from grader.sandbox.inside.kinds import made_by_maker, mutate_deeply
from grader.sandbox.inside.picture import entry, same_picture, tag, type_name
from grader.sandbox.inside.recipes import every_tool

if TYPE_CHECKING:
    from grader.sandbox.inside.nesting import Pending
    from grader.sandbox.inside.protocol import (
        NestedFact,
        RaisedFact,
        RunRequest,
        ScenarioFacts,
        ToolSpec,
    )

# Private built-ins: see grader/sandbox/inside/picture.py.
__builtins__ = dict(vars(builtins))  # type: ignore[assignment]

_SEQUENCES = (list, tuple, set, frozenset)
_COROUTINE = types.CoroutineType
_GETSET = types.GetSetDescriptorType
_MRO = type.__dict__["__mro__"].__get__
_CLASS_DICT = type.__dict__["__dict__"].__get__
_PROXY_GET = types.MappingProxyType.get
# An object's identity, like id() but without id()'s audit event, which the guard's hook would
# see once per node walked (most of a walk's time). CPython hashes a plain object by rotating
# its address by four bits: one-to-one, and as long-lived as the object, which a walk keeps.
_identity = object.__hash__
_WALK_LIMIT = 100_000
# Bound before student code, which may replace them in the sys module (see guard.py).
_get_limit = sys.getrecursionlimit
_set_limit = sys.setrecursionlimit
# Deep enough for the tagged picture of any value the pictures carry, whatever the student set.
RECURSION_FOR_REPORTS = 2_000


class Records:
    """Everything one scenario handed out and got back, kept by the guard."""

    def __init__(self, request: object, options: RunRequest) -> None:
        self.request = request
        # Only the outcome: none of the walks below, which cost most of a small scenario's time.
        self.outcome_only = options.get("facts") == "outcome"
        self.request_before = None if self.outcome_only else tag(request)
        # The request's lists and dicts as handed in, kept alive so that their ids stay theirs:
        # one taken out of the request (a popped "arguments") is still the caller's.
        self.request_held = {} if self.outcome_only else _held(request)
        self.options = options
        self.fixtures: dict[str, object] = {}  # tool name -> the very object a tool holds
        self.tools: object = None  # the dict given to invoke_tool
        self.stubs: dict[str, object] = {}  # tool name -> the callable put in it
        self.handed: list[object] = []  # every value a tool call returned
        # The values built by a maker (kinds.made_by_maker), fixtures too: only they can hold a
        # coroutine the guard made, so only they are walked at the scenario's end.
        self.made: list[object] = []
        self.thrown: list[BaseException] = []  # every exception a tool call raised
        self.thrown_states: list[ExceptionState] = []  # what each carried when it was raised
        self.envelopes: list[Any] = []  # as invoke_tool returned them: read by exact methods
        # Each envelope's value as invoke_tool returned it, with the ids of its lists and dicts
        # then: a later call that reuses the envelope cannot hide the earlier value.
        self.returned_values: list[tuple[object, set[int]]] = []
        self.raised: BaseException | None = None
        # Described as invoke_tool returns (or MEMORY_REPLY), sent at the scenario's end.
        self.observation: ScenarioFacts | str | None = None
        self.released: list[object] = []  # what describing let go of, for the loop to free
        self.arguments_shared = False  # a tool was given an object the request holds
        self.stale_calls = 0  # calls of a stand-in of an earlier call's table (steps.call)
        # In a batch, every tool the scenario may call, by key (recipes.every_tool), for the
        # guard to answer itself; what the trusted side counts otherwise, the guard counts.
        specs = options.get("specs")
        self.specs: dict[str, ToolSpec] | None = None if specs is None else every_tool(specs)
        self.calls: dict[str, int] = dict.fromkeys(self.specs or (), 0)
        self.received: dict[str, list[object]] = (
            {key: [] for key in self.specs or ()} if options.get("received") else {}
        )
        self.raised_types: list[str] = []
        # Calls of invoke_tool made inside a tool (nesting.py): those ordered and not yet
        # reported, what each reported, and the envelopes themselves (rule 9: none is reused).
        self.pending: list[Pending] = []
        self.nested: list[NestedFact] = []
        self.nested_envelopes: list[object] = []
        # The envelopes a program's earlier calls returned (steps.Steps.held): the caller still
        # holds them, so none may come back from this call (rule 9).
        self.earlier: list[object] = []

    def note_built(self, recipe: object, value: object) -> None:
        """Keep `value` for close_coroutines if a maker built it from `recipe`."""
        if made_by_maker(recipe):
            self.made.append(value)


def describe(records: Records, released: list[object]) -> ScenarioFacts:
    """Return the worker's part of the observation; changes the envelopes if asked to."""
    limit = _get_limit()
    _set_limit(max(limit, RECURSION_FOR_REPORTS))
    try:
        return _describe(records, released)
    finally:
        _set_limit(limit)


def _describe(records: Records, released: list[object]) -> ScenarioFacts:
    envelopes, request = records.envelopes, records.request
    observation: ScenarioFacts = {
        "envelopes": [tag(envelope) for envelope in envelopes],
        "raised": None if records.raised is None else raised_fact(records, records.raised),
        "tools_changed": _tools_changed(records),
        "reused_object": any(_is_input(envelope, records) for envelope in envelopes),
        "same_envelope": _same_envelope(records),
    }
    if records.nested:
        observation["nested"] = records.nested
    if any(_holds_thrown(envelope, records) for envelope in envelopes):
        observation["holds_exception"] = True
    if records.stale_calls:
        observation["stale_calls"] = records.stale_calls
    if records.outcome_only:
        return observation
    request_after = tag(request)
    if records.specs is None:  # a batch's judge reads whether it changed, never the picture
        observation["request_after"] = request_after
    observation["request_changed"] = not same_picture(request_after, records.request_before)
    observation["value_shared"] = _value_shared(records)
    observation["value_reused"] = _value_reused(records)
    observation["arguments_shared"] = records.arguments_shared
    if records.options.get("mutate_value"):
        for envelope in envelopes:
            if issubclass(type(envelope), dict):
                mutate_deeply(entry(envelope, "value"), released)
        observation["fixtures_after"] = {
            name: tag(fixture) for name, fixture in records.fixtures.items()
        }
        observation["request_after_mutation"] = tag(request)
    return observation


def _same_envelope(records: Records) -> bool:
    """Say whether two calls returned the very same envelope, a nested call's among them."""
    envelopes = records.envelopes
    if len(envelopes) > 1 and envelopes[0] is envelopes[1]:
        return True
    earlier = [*records.nested_envelopes, *records.earlier]
    return any(kept is envelope for kept in earlier for envelope in envelopes)


def raised_fact(records: Records, raised: BaseException) -> RaisedFact:
    """Describe what a call of invoke_tool raised: its type, and whether a tool raised it."""
    found = [i for i, error in enumerate(records.thrown) if raised is error]
    described: RaisedFact = {"type": type_name(type(raised)), "same_object": bool(found)}
    if found:
        # Rule 8: the very same object, unchanged: what it carried, it still carries.
        before, now = records.thrown_states[found[0]], exception_state(raised)
        described["changed"] = [
            name
            for name, old, new in zip(_STATE_NAMES, before, now, strict=True)
            if not (old is new or (type(old) is type(new) is int and old == new))
        ]
    return described


_ARGS = BaseException.__dict__["args"].__get__
_CAUSE = BaseException.__dict__["__cause__"].__get__
_SUPPRESS = BaseException.__dict__["__suppress_context__"].__get__
_INSTANCE_DICT = BaseException.__dict__["__dict__"].__get__
_STATE_NAMES = ("args", "notes", "note_count", "cause", "suppress_context")
# An exception's args, __notes__, how many notes, __cause__ and __suppress_context__.
ExceptionState = tuple[object, object, int, object, object]


def exception_state(error: BaseException) -> ExceptionState:
    """Return what an exception carries, read through BaseException's own descriptors only."""
    notes = entry(_INSTANCE_DICT(error), "__notes__")
    count = list.__len__(notes) if type(notes) is list else -1
    return (_ARGS(error), notes, count, _CAUSE(error), _SUPPRESS(error))


def _holds_thrown(envelope: object, records: Records) -> bool:
    """Say whether an envelope object keeps, in its attributes, an exception a tool raised.

    A dict's items are pictured and judged on the trusted side; a dict subclass's attributes
    are not, so they are read here through the instance dict's own C descriptor (one that a
    class replaced with its own code is not read at all).
    """
    if type(envelope) is dict or not records.thrown:
        return False
    for cls in _MRO(type(envelope)):
        descriptor = _PROXY_GET(_CLASS_DICT(cls), "__dict__")
        if descriptor is not None:
            if type(descriptor) is not _GETSET:
                return False
            attributes = descriptor.__get__(envelope)
            held = _held(list(dict.values(attributes))) if type(attributes) is dict else {}
            return any(error is node for error in records.thrown for node in held.values())
    return False


def _tools_changed(records: Records) -> bool:
    tools, stubs = records.tools, records.stubs
    if type(tools) is not dict or dict.__len__(tools) != len(stubs):
        return True
    # Pair by pair, in order: exact names, the very stubs. No key's own __eq__ is asked.
    for (key, now), (name, stub) in zip(dict.items(tools), stubs.items(), strict=True):
        if type(key) is not str or not str.__eq__(key, name) or now is not stub:
            return True
    return False


def _is_input(envelope: object, records: Records) -> bool:
    request = records.request
    arguments = entry(request, "arguments") if type(request) is dict else None
    return envelope is request or envelope is records.tools or envelope is arguments


def shares_with_request(records: Records, arguments: object) -> bool:
    """Say whether `arguments` (given to a tool) holds a list or dict the request holds or held."""
    request = records.request_held.keys() | _containers(records.request)
    return bool(_containers(arguments) & request)


def note_return(records: Records, envelope: Any) -> None:
    """Keep the value an envelope carries as invoke_tool returns it, with its containers' ids."""
    if records.outcome_only:
        return
    value = entry(envelope, "value") if issubclass(type(envelope), dict) else None
    records.returned_values.append((value, _containers(value)))


def _held(value: object) -> dict[int, object]:
    """Return every non-scalar object reachable from `value` through lists and dicts, by id.

    Exact types are told apart by identity alone, the common case first: this walk runs on
    every value of every scenario.
    """
    found: dict[int, object] = {}
    stack: list[Any] = [value]
    while stack and len(found) < _WALK_LIMIT:
        node = stack.pop()
        kind = type(node)
        if kind is str or kind is int or kind is float or kind is bool or node is None:
            continue
        key = _identity(node)
        if key in found:
            continue
        found[key] = node
        if kind is dict or issubclass(kind, dict):
            stack.extend(dict.keys(node))
            stack.extend(dict.values(node))
        elif kind is list or kind is tuple or kind is set or kind is frozenset:
            stack.extend(kind.__iter__(node))
        else:
            base = next((b for b in _SEQUENCES if issubclass(kind, b)), None)
            if base is not None:
                stack.extend(base.__iter__(node))
    return found


def close_coroutines(records: Records) -> None:
    """Close the coroutines the guard made for the scenario, so none warns in its output.

    A coroutine the guard made and nobody awaited would print "never awaited" when freed.
    Closing one already finished, or one the student ran, does nothing. Only the values a
    maker built are walked: a plain picture's value holds no coroutine, and most scenarios
    have no other.
    """
    if not records.made:
        return
    for node in _held(records.made).values():
        if type(node) is _COROUTINE:
            _COROUTINE.close(node)


def _containers(value: object) -> set[int]:
    """Return the ids of every non-scalar object reachable from `value` through lists and dicts."""
    return set(_held(value))


def _value_shared(records: Records) -> bool:
    """Say whether a returned value shares an object with the request or a tool's objects."""
    if not any(found for _value, found in records.returned_values):
        return False  # no value holds a list or dict (a failure, a number): nothing to share
    held = records.request_held.keys() | _containers(records.request)
    for fixture in records.fixtures.values():
        held |= _containers(fixture)
    for value in records.handed:
        # The returned value itself counts: the envelope must carry a fresh copy of it.
        held |= _containers(value)
    return any(held & found for _value, found in records.returned_values)


def _value_reused(records: Records) -> bool:
    """Say whether two calls' values share a list or dict (a cache, a memo kept across calls)."""
    seen: set[int] = set()
    for _value, found in records.returned_values:
        if seen & found:
            return True
        seen |= found
    return False
