"""The contract as a program: what a correct `invoke_tool` gives for one generated scenario.

It is written for this purpose from docs/CONTRACT.md, apart from the reference solution, and
holds the rules a scenario decides: which tools run and how often, and for each call of
`invoke_tool` every outcome a correct submission may give (a success with its value, a failure
code, or the handler's BaseException propagating). tests/grader/hidden/test_contract_model.py
holds it to the reference on every scenario of the corpus.

It reads a tool's recipe exactly as the worker does (grader/sandbox/inside/recipes.py) and builds
the same objects (grader/sandbox/inside/kinds.py), so the model and the worker see one scenario.
"""

import json
import types
from dataclasses import dataclass, field
from typing import Any

from course.contract import (
    DEFAULT_MAX_RESULT_BYTES,
    INVALID_INPUT,
    INVALID_RESULT,
    NOT_FOUND,
    PERMISSION_DENIED,
    RESULT_TOO_LARGE,
    TOOL_FAILED,
    UNKNOWN_TOOL,
)
from course.supplied import (
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
    check_json_value,
)
from grader.sandbox.crossing import (
    Tagged,
    ToolSpec,
    answer_call,
    build,
    every_tool,
    inner_key,
    make_raised,
    tag,
    then_answer,
    untag,
)
from grader.sandbox.handlers import Scenario, inner_scenario

SUCCESS = "success"  # the outcome of a call that must succeed (probes.SUCCESS says the same)
PROPAGATES = "propagates"  # the handler's BaseException must leave invoke_tool unchanged

# The course's classes and their codes, in the contract's order.
COURSE_CODES = (
    (InvalidInputError, INVALID_INPUT),
    (PermissionDeniedError, PERMISSION_DENIED),
    (NotFoundError, NOT_FOUND),
)


@dataclass(frozen=True)
class Expected:
    """What a correct submission does with one scenario.

    `outcomes` has one entry per call of invoke_tool: every outcome a correct submission may
    give there. `value` is the picture of json.loads(encoded) for a call that must succeed.
    `calls` counts the scenario's own tools; a tool that calls invoke_tool itself (a "nest"
    recipe) and runs has what that inner call gives in `inner`, under the tool's name.
    """

    outcomes: tuple[tuple[str, ...], ...]
    calls: dict[str, int]
    value: Tagged = None
    size: int | None = None  # the encoded size of the handler's value, when it has one
    unencodable: bool = False  # JSON text, but not UTF-8: a lone surrogate (lesson step 4)
    inner: dict[str, "Expected"] = field(default_factory=dict)


def expect(scenario: Scenario) -> Expected:
    """Return what the contract says of `scenario`: outcomes per call, calls per tool."""
    request, tools = scenario["request"], scenario["tools"]
    repeat = scenario.get("repeat", 1)
    budget = scenario.get("max_result_bytes", DEFAULT_MAX_RESULT_BYTES)
    name = request["tool"]
    if name not in tools:
        return Expected(((UNKNOWN_TOOL,),) * repeat, dict.fromkeys(tools, 0))
    outcomes: list[tuple[str, ...]] = []
    value: Tagged = None
    size, unencodable = None, False
    inner: dict[str, Expected] = {}
    for call in range(1, repeat + 1):
        if tools[name]["does"] == "nest":  # what its inner call gives decides what it does
            inner[name] = expect(inner_scenario(tools[name]))
            judged = nest_outcomes(tools[name], inner[name], budget)
        else:
            judged = handler_outcomes(tools[name], call, request, budget)
        if isinstance(judged, tuple):  # the handler raised
            outcomes.append(judged)
            continue
        outcomes.append(judged.outcomes[0])
        value, size, unencodable = judged.value, judged.size, judged.unencodable
    calls = {tool: repeat if tool == name else 0 for tool in tools}
    return Expected(tuple(outcomes), calls, value, size, unencodable, inner)


# What one call of a handler allows: the outcomes of the exception it raises, or value_outcomes
# of the value it returns.
Judged = tuple[str, ...] | Expected


def handler_outcomes(spec: ToolSpec, call: int, request: dict[str, Any], budget: int) -> Judged:
    """Return what the `call`-th call of an ordinary tool allows."""
    answer = answer_call(spec, call)
    if "raise" in answer:
        return exception_outcomes(make_raised(answer["raise"]))
    if answer.get("gives_back") == "fixture":
        result = build(spec.get("fixture"))
    elif answer.get("gives_back") == "arguments":
        result = request["arguments"]
    else:
        result = build(answer["return"])
    return value_outcomes(result, budget)


def nest_outcomes(spec: ToolSpec, inner: Expected, budget: int) -> Judged:
    """Return what a tool that calls invoke_tool allows, once its inner call gave `inner`.

    The handler does not catch: a BaseException that leaves the inner call leaves it too.
    Otherwise it raises its own exception, returns its own value, or returns the inner
    envelope's value: json.loads(encoded) of a success, None after a failure.
    """
    if inner.outcomes[0] == (PROPAGATES,):
        return (PROPAGATES,)
    answer = then_answer(spec)
    if "raise" in answer:
        return exception_outcomes(make_raised(answer["raise"]))
    if spec.get("then") == "return_inner":
        succeeded = inner.outcomes[0] == (SUCCESS,)
        return value_outcomes(untag(inner.value) if succeeded else None, budget)
    return value_outcomes(build(answer["return"]), budget)


def every_inner(expected: Expected, outer: str = "") -> dict[str, Expected]:
    """Return what each inner call gives, at every depth, by its nest tool's key."""
    found: dict[str, Expected] = {}
    for name, inner in expected.inner.items():
        key = inner_key(outer, name) if outer else name
        found[key] = inner
        found.update(every_inner(inner, key))
    return found


def every_call(scenario: Scenario, expected: Expected) -> dict[str, int]:
    """Return the calls of every tool the scenario may call, by key (recipes.every_tool).

    The tools of an inner call that does not run are called no more than those of one that
    runs and does not ask for them.
    """
    calls = dict.fromkeys(every_tool(scenario["tools"]), 0)
    calls.update(expected.calls)
    for name, inner in expected.inner.items():
        below = every_call(inner_scenario(scenario["tools"][name]), inner)
        calls.update({inner_key(name, key): count for key, count in below.items()})
    return calls


def exception_outcomes(error: BaseException) -> tuple[str, ...]:
    """Return the outcomes a handler's exception allows: its class's codes, or propagating."""
    if not isinstance(error, Exception):
        return (PROPAGATES,)
    codes = tuple(code for cls, code in COURSE_CODES if isinstance(error, cls))
    return codes or (TOOL_FAILED,)


def value_outcomes(value: object, budget: int) -> Expected:
    """Return what a handler's returned `value` allows under `budget` (rules 4 and 6)."""
    try:
        try:
            check_json_value(value)
        except (TypeError, ValueError):
            size = encoded_size(value)
            too_large = size is not None and size > budget
            either = (INVALID_RESULT, RESULT_TOO_LARGE) if too_large else (INVALID_RESULT,)
            return Expected((either,), {}, size=size)
        size = encoded_size(value)
        if size is None:
            return Expected(((INVALID_RESULT,),), {}, unencodable=not_utf8(value))
        if size > budget:
            return Expected(((RESULT_TOO_LARGE,),), {}, size=size)
        encoded = json.dumps(value, ensure_ascii=False, allow_nan=False)
        return Expected(((SUCCESS,),), {}, tag(json.loads(encoded)), size)
    finally:
        close_coroutines(value)


def encoded_size(value: object) -> int | None:
    """Return the contract's size of `value`, or None when it cannot become UTF-8 JSON text."""
    try:
        encoded = json.dumps(value, ensure_ascii=False, allow_nan=False)
        return len(encoded.encode("utf-8"))
    except (TypeError, ValueError, RecursionError):  # UnicodeEncodeError is a ValueError
        return None


def not_utf8(value: object) -> bool:
    """Say whether `value` becomes JSON text that UTF-8 cannot encode (a lone surrogate)."""
    try:
        json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    except (TypeError, ValueError, RecursionError):
        return False
    return False


def close_coroutines(value: Any, depth: int = 0) -> None:
    """Close every coroutine in a value the model built, so none warns it was never awaited."""
    if isinstance(value, types.CoroutineType):
        value.close()
    elif depth < 100 and type(value) in (list, tuple):
        for item in value:
            close_coroutines(item, depth + 1)
    elif depth < 100 and type(value) is dict:
        for item in value.values():
            close_coroutines(item, depth + 1)
