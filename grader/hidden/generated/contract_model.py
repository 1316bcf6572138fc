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
from dataclasses import dataclass
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
from grader.sandbox.crossing import Tagged, answer_call, build, make_raised, tag
from grader.sandbox.handlers import Scenario

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
    """

    outcomes: tuple[tuple[str, ...], ...]
    calls: dict[str, int]
    value: Tagged = None
    size: int | None = None  # the encoded size of the handler's value, when it has one
    unencodable: bool = False  # JSON text, but not UTF-8: a lone surrogate (lesson step 4)


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
    for call in range(1, repeat + 1):
        answer = answer_call(tools[name], call)
        if "raise" in answer:
            outcomes.append(exception_outcomes(make_raised(answer["raise"])))
            continue
        if answer.get("gives_back") == "fixture":
            result = build(tools[name].get("fixture"))
        elif answer.get("gives_back") == "arguments":
            result = request["arguments"]
        else:
            result = build(answer["return"])
        judged = value_outcomes(result, budget)
        outcomes.append(judged.outcomes[0])
        value, size, unencodable = judged.value, judged.size, judged.unencodable
    calls = {tool: repeat if tool == name else 0 for tool in tools}
    return Expected(tuple(outcomes), calls, value, size, unencodable)


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
