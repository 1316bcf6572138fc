"""The tools of a scenario, kept on the trusted side: what each does, and what it saw.

A hidden test describes each tool as data (return this value, raise this kind of exception,
mutate the arguments, hand out the tool's own object). The worker never sees these
descriptions: its tools are stand-ins whose every call comes here, where it is counted, its
arguments recorded as the worker pictured them at the moment of the call, and answered with
what the stand-in must do. A submission therefore cannot forge a count or learn what a tool
would do without calling it.

A batch of scenarios (SubmissionSession.run_batch) hands the recipes to the guard instead,
which answers and counts each call itself: the recipes are then as private as the channel's
key, which the guard holds too, and no call waits for a round trip. A tool that calls
invoke_tool itself (a "nest" recipe) runs only in a batch: the guard hands its stand-in the
inner call to make (grader/sandbox/inside/nesting.py).
"""

from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict, get_args

from grader.sandbox.inside.kinds import MAKERS
from grader.sandbox.inside.picture import type_name, untag
from grader.sandbox.inside.protocol import (
    Does,
    Tagged,
    Then,
    ToolAnswer,
    ToolboxFacts,
    ToolCall,
    ToolSpec,
)
from grader.sandbox.inside.raising import EXCEPTION_CLASSES, EXCEPTION_KINDS, make_raised
from grader.sandbox.inside.recipes import answer_call

DOES: tuple[Does, ...] = get_args(Does)
THEN: tuple[Then, ...] = get_args(Then)


class Scenario(TypedDict):
    """One call of invoke_tool to observe, as a hidden test builds it (grader/hidden/probes.py)."""

    request: dict[str, Any]  # handed to invoke_tool as it is, whatever it holds
    tools: dict[str, ToolSpec]  # the tools table, by name
    max_result_bytes: NotRequired[int]  # the budget invoke_tool is given, if any
    repeat: NotRequired[int]  # how many times invoke_tool is called (once by default)
    mutate_value: NotRequired[bool]  # change every envelope's value afterwards
    received: NotRequired[bool]  # in a batch: picture each call's arguments (ownership's need)
    outcome_only: NotRequired[bool]  # in a batch: observe the envelope, the raise and the calls
    # In a batch: its place in a program, calls into the one loaded module that follow each
    # other (0 starts one); each envelope is compared with those its earlier calls returned.
    program: NotRequired[int]
    # The request's arguments, when hundreds of KiB to MiB of them: a recipe the worker builds
    # them from (kinds.large_arguments), which the request does not carry across the pipe.
    arguments_made: NotRequired[Tagged]


def inner_scenario(spec: ToolSpec) -> Scenario:
    """Return the call of invoke_tool a "nest" tool makes, as a scenario of its own."""
    inner = spec["nest"]
    made: Scenario = {"request": untag(inner["request"]), "tools": inner["tools"]}
    if "max_result_bytes" in inner:
        made["max_result_bytes"] = inner["max_result_bytes"]
    return made


class RecipeError(ValueError):
    """A hidden test described a tool the worker could not build: a mistake in the suite."""


def check_spec(spec: ToolSpec) -> ToolSpec:
    """Return `spec` if the worker can do what it describes; raise RecipeError naming the fault.

    Checked when a hidden test builds its scenario, so a misspelt kind or maker stops the test
    with this message, not every student's run with "the worker could not observe".
    """
    does = spec.get("does")
    if does not in DOES:
        raise RecipeError(f"a tool that does {does!r}: it does one of {', '.join(DOES)}")
    if does == "nest":
        _check_nest(spec)
    kind = spec.get("exception")
    raising = does in ("raise", "mutate_then_raise", "flaky") or spec.get("then") == "raise"
    if raising and kind not in EXCEPTION_KINDS:
        raise RecipeError(f"an exception of kind {kind!r}, which raising.py cannot make")
    value = spec.get("value")
    maker = value.get("make") if type(value) is dict else None
    if maker is not None and maker not in MAKERS:
        raise RecipeError(f"a value made by {maker!r}, which kinds.py cannot make")
    if ("args" in spec or "attributes" in spec) and kind not in EXCEPTION_CLASSES:
        raise RecipeError(f"arguments for an exception of kind {kind!r}, which has none of its own")
    return spec


def _check_nest(spec: ToolSpec) -> None:
    """Check a tool that calls invoke_tool: its inner call, and what it does after it."""
    inner = spec.get("nest")
    if type(inner) is not dict or "request" not in inner or type(inner.get("tools")) is not dict:
        raise RecipeError("a tool that calls invoke_tool without an inner request and tools")
    request = inner_scenario(spec)["request"]
    if type(request) is not dict or not {"id", "tool", "arguments"} <= request.keys():
        raise RecipeError(f"an inner request without an id, a tool and arguments: {request!r}")
    if spec.get("then", "return") not in THEN:
        raise RecipeError(f"a tool that calls invoke_tool and then does {spec.get('then')!r}")
    for recipe in inner["tools"].values():
        if check_spec(recipe)["does"] == "return_fixture":  # fixtures are built for the outer
            raise RecipeError("an inner tool that returns its own object, which is not built")


@dataclass
class ToolRecord:
    """One tool's description and what happened to it during one scenario."""

    spec: ToolSpec
    calls: int = 0
    received: list[Tagged] = field(default_factory=list)  # tagged arguments, one per call
    raised: list[str] = field(default_factory=list)  # type names of the exceptions it raised

    def answer(self, arguments: Tagged) -> ToolAnswer:
        """Count a call with these tagged arguments; return what the stand-in must do."""
        self.calls += 1
        self.received.append(arguments)
        answer = answer_call(self.spec, self.calls)
        if "raise" in answer:
            self.raised.append(type_name(type(make_raised(answer["raise"]))))
        return answer


class Toolbox:
    """The tools of one scenario, by name."""

    def __init__(self, specs: dict[str, ToolSpec]) -> None:
        self.records = {name: ToolRecord(check_spec(spec)) for name, spec in specs.items()}

    def answer(self, message: ToolCall) -> ToolAnswer:
        """Answer one call message from the worker; an unknown tool name is the worker's lie."""
        record = self.records.get(message["call"])
        if record is None:
            raise ValueError("a call to a tool the scenario does not have")
        return record.answer(message["arguments"])

    def fixtures(self) -> dict[str, Tagged]:
        """The recipes of the objects tools hold, for the worker to build once per scenario."""
        return {
            name: record.spec["fixture"]
            for name, record in self.records.items()
            if "fixture" in record.spec
        }

    def facts(self) -> ToolboxFacts:
        """What the trusted side knows of the scenario: calls, arguments and raised types."""
        return {
            "calls": {name: record.calls for name, record in self.records.items()},
            "received": {name: record.received for name, record in self.records.items()},
            "handler_raised": [t for record in self.records.values() for t in record.raised],
        }
