"""Run a generated scenario in this process with real handlers, for our own references only.

The model's tests (tests/grader/hidden/test_contract_model.py) and the scenario benchmark
(bench/scenarios.py) call the references this way; student code only ever runs in the sandbox.
"""

from collections.abc import Callable
from typing import Any

from grader.hidden.generated.contract_model import PROPAGATES, SUCCESS, close_coroutines
from grader.sandbox.handlers import Scenario
from grader.sandbox.inside.kinds import build
from grader.sandbox.inside.loop import FalsyTool
from grader.sandbox.inside.protocol import ToolSpec
from grader.sandbox.inside.recipes import answer_call, carry_out

Outcome = tuple[str, object]  # "success" with its value, a code, or PROPAGATES


def handlers(scenario: Scenario) -> tuple[dict[str, Callable[[Any], object]], dict[str, int]]:
    """Return the tools table of `scenario` as real callables, and their call counts."""
    calls = dict.fromkeys(scenario["tools"], 0)

    def tool(name: str, spec: ToolSpec) -> Callable[[Any], object]:
        fixture = build(spec["fixture"]) if "fixture" in spec else None

        def handler(arguments: Any) -> object:
            calls[name] += 1
            error, result, _released = carry_out(answer_call(spec, calls[name]), arguments, fixture)
            if error is not None:
                raise error
            return result

        return FalsyTool(handler) if spec.get("falsy") else handler

    return {name: tool(name, spec) for name, spec in scenario["tools"].items()}, calls


def run(
    invoke_tool: Callable[..., Any], scenario: Scenario
) -> tuple[list[Outcome], dict[str, int]]:
    """Call `invoke_tool` as the scenario says; return its outcome per call and the counts."""
    tools, calls = handlers(scenario)
    options = {}
    if "max_result_bytes" in scenario:
        options["max_result_bytes"] = scenario["max_result_bytes"]
    outcomes: list[Outcome] = []
    for _ in range(scenario.get("repeat", 1)):
        try:
            envelope = invoke_tool(scenario["request"], tools, **options)
        except BaseException as error:
            if isinstance(error, Exception):
                raise
            outcomes.append((PROPAGATES, None))
            continue
        close_coroutines(envelope)
        outcomes.append((envelope["error"] or SUCCESS, envelope["value"]))
    return outcomes, calls
