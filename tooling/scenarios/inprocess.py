"""Run a generated scenario in this process with real handlers, for our own references only.

The model's tests (tests/grader/hidden/test_contract_model.py) and the scenario benchmark
(bench/scenarios.py) call the references this way; student code only ever runs in the sandbox.
A tool that calls invoke_tool itself (a "nest" recipe) calls the same reference, as the worker's
stand-in calls the submission's (grader/sandbox/inside/loop.py `nest`).
"""

from collections.abc import Callable
from typing import Any

from grader.hidden.judge.contract_model import PROPAGATES, SUCCESS, close_coroutines
from grader.sandbox.handlers import Scenario, inner_scenario
from grader.sandbox.inside.kinds import build
from grader.sandbox.inside.loop import FalsyTool
from grader.sandbox.inside.protocol import ToolSpec
from grader.sandbox.inside.recipes import answer_call, carry_out, every_tool, inner_key, then_answer

Outcome = tuple[str, object]  # "success" with its value, a code, or PROPAGATES
Handler = Callable[[Any], object]


def handlers(
    scenario: Scenario,
    invoke_tool: Callable[..., Any] | None = None,
    inner: dict[str, list[Outcome]] | None = None,
) -> tuple[dict[str, Handler], dict[str, int]]:
    """Return the tools table of `scenario` as real callables, and their call counts.

    Counts are by key (recipes.every_tool). A nest tool calls `invoke_tool` and adds what that
    inner call gave to `inner`, under its key.
    """
    calls = dict.fromkeys(every_tool(scenario["tools"]), 0)
    reports = {} if inner is None else inner

    def table(outer: str, specs: dict[str, ToolSpec]) -> dict[str, Handler]:
        return {
            name: tool(inner_key(outer, name) if outer else name, spec)
            for name, spec in specs.items()
        }

    def tool(key: str, spec: ToolSpec) -> Handler:
        fixture = build(spec["fixture"]) if "fixture" in spec else None

        def handler(arguments: Any) -> object:
            calls[key] += 1
            if spec["does"] == "nest":
                return nested(key, spec)
            error, result, _released = carry_out(answer_call(spec, calls[key]), arguments, fixture)
            if error is not None:
                raise error
            return result

        return FalsyTool(handler) if spec.get("falsy") else handler

    def nested(key: str, spec: ToolSpec) -> object:
        assert invoke_tool is not None, "a tool that calls invoke_tool needs one"
        made = inner_scenario(spec)
        try:
            envelope = call(invoke_tool, made, table(key, made["tools"]))
        except BaseException as error:
            reports.setdefault(key, []).append(_raised(error))
            raise
        reports.setdefault(key, []).append((envelope["error"] or SUCCESS, envelope["value"]))
        if spec.get("then") == "return_inner":
            return envelope["value"]
        raised, result, _released = carry_out(then_answer(spec), None, None)
        if raised is not None:
            raise raised
        return result

    return table("", scenario["tools"]), calls


def call(invoke_tool: Callable[..., Any], scenario: Scenario, tools: dict[str, Handler]) -> Any:
    """Call `invoke_tool` once with the scenario's request and budget and `tools`."""
    options = {}
    if "max_result_bytes" in scenario:
        options["max_result_bytes"] = scenario["max_result_bytes"]
    return invoke_tool(scenario["request"], tools, **options)


def run(
    invoke_tool: Callable[..., Any],
    scenario: Scenario,
    inner: dict[str, list[Outcome]] | None = None,
) -> tuple[list[Outcome], dict[str, int]]:
    """Call `invoke_tool` as the scenario says; return its outcome per call and the counts.

    What each call a nest tool made gave is added to `inner`, by the tool's key.
    """
    tools, calls = handlers(scenario, invoke_tool, inner)
    outcomes: list[Outcome] = []
    for _ in range(scenario.get("repeat", 1)):
        try:
            envelope = call(invoke_tool, scenario, tools)
        except BaseException as error:
            if isinstance(error, Exception):
                raise
            outcomes.append((PROPAGATES, None))
            continue
        close_coroutines(envelope)
        outcomes.append((envelope["error"] or SUCCESS, envelope["value"]))
    return outcomes, calls


def _raised(error: BaseException) -> Outcome:
    """Return what an inner call that raised gave: PROPAGATES, or what it raised instead."""
    if isinstance(error, Exception):
        return (f"raised {type(error).__name__}", None)
    return (PROPAGATES, None)
