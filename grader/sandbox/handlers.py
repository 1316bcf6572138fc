"""The tools of a scenario, kept on the trusted side: what each does, and what it saw.

A hidden test describes each tool as data (return this value, raise this kind of exception,
mutate the arguments, hand out the tool's own object). The worker never sees these
descriptions: its tools are stand-ins whose every call comes here, where it is counted, its
arguments recorded as the worker pictured them at the moment of the call, and answered with
what the stand-in must do. A submission therefore cannot forge a count or learn what a tool
would do without calling it.
"""

from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict, get_args

from grader.sandbox.inside.kinds import EXCEPTION_KINDS, MAKERS, make_exception
from grader.sandbox.inside.picture import type_name
from grader.sandbox.inside.protocol import Tagged, ToolAnswer, ToolboxFacts, ToolCall

# What a tool can do; the recipes say which (grader/hidden/probes.py builds them).
Does = Literal[
    "return",
    "raise",
    "mutate",
    "mutate_then_raise",
    "flaky",
    "return_fixture",
    "return_arguments",
]
DOES: tuple[Does, ...] = get_args(Does)


class ToolSpec(TypedDict):
    """A tool's recipe, as grader/hidden/probes.py builds it: what the tool does, with what."""

    does: Does
    value: NotRequired[Tagged]  # what it returns: a tagged value, or {"make": a maker, ...}
    exception: NotRequired[str]  # what it raises: a kind of kinds.EXCEPTION_KINDS
    message: NotRequired[str]  # what that exception carries
    fixture: NotRequired[Tagged]  # the object it holds, for return_fixture
    falsy: NotRequired[bool]  # a callable object whose truth value is False


class Scenario(TypedDict):
    """One call of invoke_tool to observe, as a hidden test builds it (grader/hidden/probes.py)."""

    request: dict[str, Any]  # handed to invoke_tool as it is, whatever it holds
    tools: dict[str, ToolSpec]  # the tools table, by name
    max_result_bytes: NotRequired[int]  # the budget invoke_tool is given, if any
    repeat: NotRequired[int]  # how many times invoke_tool is called (once by default)
    mutate_value: NotRequired[bool]  # change every envelope's value afterwards


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
    kind = spec.get("exception")
    if (does in ("raise", "mutate_then_raise", "flaky")) and kind not in EXCEPTION_KINDS:
        raise RecipeError(f"an exception of kind {kind!r}, which kinds.py cannot make")
    value = spec.get("value")
    maker = value.get("make") if type(value) is dict else None
    if maker is not None and maker not in MAKERS:
        raise RecipeError(f"a value made by {maker!r}, which kinds.py cannot make")
    return spec


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
        does = self.spec["does"]
        answer: ToolAnswer = {"mutate": does in ("mutate", "mutate_then_raise")}
        if does in ("raise", "mutate_then_raise") or (does == "flaky" and self.calls == 1):
            kind, message = self.spec["exception"], self.spec.get("message", "")
            self.raised.append(type_name(type(make_exception(kind, message))))
            answer["raise"] = {"kind": kind, "message": message}
        elif does == "return_fixture":
            answer["gives_back"] = "fixture"
        elif does == "return_arguments":
            answer["gives_back"] = "arguments"
        else:
            answer["return"] = self.spec.get("value")  # None's picture is None
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
