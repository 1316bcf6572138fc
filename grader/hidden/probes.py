"""Scenario builders and checks shared by the hidden tests, all on the trusted side.

A scenario is plain data: the request, the tools table as handler descriptions, the byte budget
and what to observe. Values that JSON cannot carry (tuples, NaN, lone surrogates) travel as
tagged values; the few it cannot even describe (cycles, IntEnum members) as named makers.
"""

import enum
import json
from typing import Any, Final, Literal, TypedDict, Unpack

from course.contract import FAILURE_CODES
from grader.model import NotJudged
from grader.sandbox.crossing import Limit, Nest, Opaque, Then, ToolSpec, tag
from grader.sandbox.handlers import Scenario, check_spec
from grader.sandbox.observation import MISSING, Observation

# Stands for private context in exception messages; it must never reach an envelope.
MARKER = "PRIVATE-9c1e-secret"
TOOL = "probe"
DEFAULT_ID = "req-7"  # the request id of a scenario that names none
ROOMY = 10**7  # a budget no value of the hidden tests comes near
# What outcome_of says of a call that succeeded, beside the failure codes it says of the others.
SUCCESS: Final = "success"


class _Budget(enum.Enum):
    """A budget a scenario leaves out, so that invoke_tool uses its default."""

    DEFAULT = enum.auto()


DEFAULT = _Budget.DEFAULT


class ScenarioOptions(TypedDict, total=False):
    """What else a scenario may ask (grader.sandbox.handlers.Scenario)."""

    repeat: int
    mutate_value: bool


def returns(value: object) -> ToolSpec:
    """A handler that returns a new copy of `value` each call."""
    return {"does": "return", "value": tag(value)}


def returns_made(maker: str, **options: object) -> ToolSpec:
    """A handler that returns a value only the worker can build, such as a cycle."""
    return check_spec({"does": "return", "value": {"make": maker, **options}})


def raises(kind: str, message: str = MARKER) -> ToolSpec:
    """A handler that raises a new exception of the named kind, carrying `message`."""
    return check_spec({"does": "raise", "exception": kind, "message": message})


def mutates(value: object = None) -> ToolSpec:
    """A handler that changes its arguments at every depth, then returns `value`."""
    return {"does": "mutate", "value": tag(value)}


def returns_fixture(value: object) -> ToolSpec:
    """A handler that returns the very object it holds, as a careless tool hands out its data."""
    return {"does": "return_fixture", "fixture": tag(value)}


def returns_arguments() -> ToolSpec:
    """A handler that returns the argument dict it was given."""
    return {"does": "return_arguments"}


def falsy(handler: ToolSpec) -> ToolSpec:
    """The same handler, as a callable object whose truth value is False."""
    return {**handler, "falsy": True}


# Handlers that are callable objects whose truth value is False: still tools. error_codes asks
# their codes and no_retry that each is called once, on these very scenarios.
FALSY_HANDLERS = {
    "falsy": ("for a handler object whose bool() is False", falsy(returns({"n": 1}))),
    "falsy_raises": (
        "for a handler object whose bool() is False that raises NotFoundError",
        falsy(raises("not_found")),
    ),
}


def nests(
    inner: Scenario, then: Then = "return", value: object = None, exception: str = ""
) -> ToolSpec:
    """A handler that calls invoke_tool itself, as `inner` says (request, tools, budget).

    Then it returns `value`, or the inner envelope's value ("return_inner"), or raises a new
    exception of the kind `exception`, carrying MARKER ("raise"). Whatever the inner call
    raises passes through it.
    """
    call: Nest = {"request": tag(inner["request"]), "tools": inner["tools"]}
    if "max_result_bytes" in inner:
        call["max_result_bytes"] = inner["max_result_bytes"]
    spec: ToolSpec = {"does": "nest", "nest": call, "then": then}
    if then == "return":
        spec["value"] = tag(value)
    elif then == "raise":
        spec["exception"], spec["message"] = exception, MARKER
    return check_spec(spec)


def flaky(value: object) -> ToolSpec:
    """A handler that fails on its first call and would succeed on a second."""
    return {"does": "flaky", "exception": "runtime_error", "message": MARKER, "value": tag(value)}


def scenario(
    handler: ToolSpec,
    *,
    request_id: object = DEFAULT_ID,
    arguments: dict[str, Any] | None = None,
    max_result_bytes: int | Literal[_Budget.DEFAULT] = DEFAULT,
    **more: Unpack[ScenarioOptions],
) -> Scenario:
    """Return a scenario calling the tool `probe`, described by `handler`, once."""
    if arguments is None:
        arguments = {"query": "q"}
    request = {"id": request_id, "tool": TOOL, "arguments": arguments}
    data: Scenario = {"request": request, "tools": {TOOL: handler}}
    if max_result_bytes is not DEFAULT:
        data["max_result_bytes"] = max_result_bytes
    return {**data, **more}


# Names that are not exactly a key of {"probe", "other"}: near misses a lenient lookup would take.
UNKNOWN_NAMES = {
    "missing": ('for the tool name "missing"', "missing"),
    "capitalised": ('for "Probe", when the table has "probe"', "Probe"),
    "upper": ('for "PROBE", when the table has "probe"', "PROBE"),
    "padded": ('for " probe" with a leading space', " probe"),
    "trailing": ('for "probe " with a trailing space', "probe "),
    "near_miss": ('for "prob", one letter short of "probe"', "prob"),
    "plural": ('for "probes", one letter more than "probe"', "probes"),
    "empty": ("for an empty tool name", ""),
}


def unknown_tool_scenario(request_id: object = DEFAULT_ID, tool: str = "missing") -> Scenario:
    """Return a scenario whose tool is not in a table of two counted tools."""
    tools = {"probe": returns({"n": 1}), "other": returns(None)}
    request = {"id": request_id, "tool": tool, "arguments": {}}
    return {"request": request, "tools": tools}


def encoded_size(value: object) -> int:
    """The contract's size of a value: UTF-8 bytes of its JSON text with the default separators."""
    return len(json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8"))


def step_aside(reason: str, category: str, observation: Observation) -> NotJudged:
    """Return the NotJudged that steps aside for `category`, which judges `observation`'s case.

    It stands only if a test of that category asked the very same scenario and judged it.
    """
    return NotJudged(reason, category, observation.key)


# What outcome_of says of an envelope that shows neither ok nor one of the codes: no way the
# call went can be read from it, so the test that asked fails.
UNREADABLE: Final = "an envelope that shows neither ok nor a code"


def describe_raise(observation: Observation) -> str:
    """A sentence for assertion messages when invoke_tool raised instead of returning."""
    raised = observation.raised
    return f"invoke_tool raised {raised['type']}" if raised else "invoke_tool returned"


def envelope_of(observation: Observation) -> object:
    """Return the first envelope as the dict it really holds, or None when invoke_tool raised.

    CONTRACT.md asks for "a new dict", so a dict subclass (an OrderedDict, a class adding
    attribute access) is read by its real items, never through its own methods.
    """
    return as_dict(observation.envelope)


def as_dict(envelope: object) -> object:
    """Return a dict subclass's picture as the dict it really holds; any other envelope as is."""
    if isinstance(envelope, Opaque) and envelope.base == "dict":
        return envelope.content
    return envelope


def field(observation: Observation, name: str) -> object:
    """Return one field of the envelope, or MISSING if the envelope is not a dict holding it."""
    envelope = envelope_of(observation)
    return envelope[name] if isinstance(envelope, dict) and name in envelope else MISSING


def returned(observation: Observation) -> object:
    """Return the envelope; without one, step aside: raising for a handler is rule 8's case."""
    if observation.envelope is None:
        reason = f"{describe_raise(observation)}, which the error_codes category judges"
        raise step_aside(reason, "error_codes", observation)
    return envelope_of(observation)


def outcome_of(observation: Observation) -> object:
    """Return "success" or the failure's code, read as leniently as the envelope allows.

    Whether `ok` is exactly a bool, and agrees with `error`, are the envelope category's
    questions; every other category only asks which way the call went. The error field says it
    best: None is a success and one of the seven codes is that failure, whatever `ok` holds.
    Any other error (a misspelled code) is read by `ok`; an envelope that says neither is
    UNREADABLE, which is no answer to any test.
    """
    returned(observation)
    error = plain(field(observation, "error"))
    if error is None:
        return SUCCESS
    if error in FAILURE_CODES:
        return error
    ok = plain(field(observation, "ok"))
    if ok is not MISSING and ok == True:  # noqa: E712 - 1 and 1.0 read as True here
        return SUCCESS
    if ok is not MISSING and ok == False and error is not MISSING:  # noqa: E712
        return error
    return UNREADABLE


def failed(observation: Observation) -> bool:
    """Say whether the envelope shows a failure: ok False, or a code whatever ok holds."""
    ok = plain(field(observation, "ok"))
    if ok is not MISSING and ok == False:  # noqa: E712
        return True
    try:
        return outcome_of(observation) not in (SUCCESS, UNREADABLE)
    except NotJudged:  # invoke_tool raised: no envelope at all
        return False


def plain(field: object) -> object:
    """Read a subclass of int or str (an IntEnum, a StrEnum) as its plain content."""
    if isinstance(field, Opaque) and field.base in ("bool", "int", "str"):
        return field.content
    return field


def code_of(observation: Observation) -> object:
    """Return the error field read plainly (a StrEnum member as its text), or why there is none.

    For error_codes, raising is its own rule 8, so a call that raised fails rather than steps
    aside; whether the code is an exact str is the envelope's question.
    """
    if observation.envelope is None:
        return describe_raise(observation)
    return plain(field(observation, "error"))


def outcome_or_raise(observation: Observation) -> object:
    """Return outcome_of, or what invoke_tool raised instead of answering.

    For a case that asks for its own category's code: raising instead of giving that code
    breaks the case's rule as well as rule 8 (CONTRACT.md's attribution rule: raising for a
    tuple loses in vocabulary too), so it fails here rather than stepping aside.
    """
    if observation.envelope is None:
        return describe_raise(observation)
    return outcome_of(observation)


def loosely_equal(value: object, expected: object) -> bool:
    """Say whether `value` holds `expected` by Python's ==, so 0.0 == 0 == False.

    Exact types are rule 6's (ownership); a subclass instance (an OrderedDict for {}) is read
    as its content, and a foreign object (a Decimal) as no value at all.
    """
    if isinstance(value, Opaque):
        return value.base is not None and value.content == expected
    if isinstance(value, Limit):
        return False
    return type(value) in (type(None), bool, int, float, str, list, dict) and value == expected


def failure_of(observation: Observation) -> None:
    """Step aside unless the envelope shows a failure (a success is error_codes' wrong answer)."""
    if not failed(observation):
        reason = "the call succeeded although the handler raised, which error_codes judges"
        raise step_aside(reason, "error_codes", observation)


def value_of(observation: Observation) -> object:
    """Return a success's value, or a description of what came back instead of one."""
    if observation.envelope is None:
        return describe_raise(observation)
    return field(observation, "value")
