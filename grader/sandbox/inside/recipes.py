"""What a tool does at one of its calls, read from its recipe: the one reading for both sides.

The trusted side answers a scenario's tool calls with it one by one (grader/sandbox/handlers.py);
in a batch the guard answers them itself from the recipes the batch carries. Either way the
guard carries the answer out (`carry_out`), as do the in-process runs of our own references.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

from grader.sandbox.inside.kinds import build, mutate_deeply
from grader.sandbox.inside.raising import make_raised

if TYPE_CHECKING:
    from grader.sandbox.inside.protocol import Raising, ToolAnswer, ToolSpec

# Private built-ins: see grader/sandbox/inside/picture.py.
__builtins__ = dict(vars(builtins))  # type: ignore[assignment]

# What a raising recipe may say of its exception besides its kind and message.
_RAISING_EXTRAS = ("args", "attributes", "depth")
# Joins a "nest" tool's key and the name of a tool in the table its inner call is given: that
# tool's key. A scenario's own tools are keyed by their names.
NESTED = "/"


def inner_key(outer: str, name: str) -> str:
    """Return the key of the tool `name` of the table the nest tool keyed `outer` hands out."""
    return f"{outer}{NESTED}{name}"


def every_tool(specs: dict[str, ToolSpec]) -> dict[str, ToolSpec]:
    """Return every tool a scenario may call, by key: its own, and those its nest tools hand out.

    `specs` itself when no tool nests (nearly every scenario): nothing is copied then.
    """
    if not any(spec["does"] == "nest" for spec in specs.values()):
        return specs
    found: dict[str, ToolSpec] = {}
    tables = [("", specs)]
    while tables:
        outer, table = tables.pop()
        for name, spec in table.items():
            key = inner_key(outer, name) if outer else name
            found[key] = spec
            if spec["does"] == "nest":
                tables.append((key, spec["nest"]["tools"]))
    return found


def answer_call(spec: ToolSpec, call_number: int) -> ToolAnswer:
    """Return what the tool `spec` describes does at its `call_number`-th call (from 1)."""
    does = spec["does"]
    answer: ToolAnswer = {"mutate": does in ("mutate", "mutate_then_raise")}
    if does in ("raise", "mutate_then_raise") or (does == "flaky" and call_number == 1):
        raising: Raising = {"kind": spec["exception"], "message": spec.get("message", "")}
        for extra in _RAISING_EXTRAS:
            if extra in spec:
                raising[extra] = spec[extra]  # type: ignore[literal-required]
        answer["raise"] = raising
    elif does == "return_fixture":
        answer["gives_back"] = "fixture"
    elif does == "return_arguments":
        answer["gives_back"] = "arguments"
    else:
        answer["return"] = spec.get("value")  # None's picture is None
    return answer


def then_answer(spec: ToolSpec) -> ToolAnswer:
    """Return what a nest tool does once its inner call has returned: return or raise its own.

    A tool that returns the inner call's value ("return_inner") is answered by the guard, which
    reads that value from the envelope itself.
    """
    if spec.get("then") == "raise":
        return answer_call({**spec, "does": "raise"}, 1)
    return {"mutate": False, "return": spec.get("value")}


def carry_out(
    answer: ToolAnswer, arguments: object, fixture: object
) -> tuple[BaseException | None, object, list[object]]:
    """Do what `answer` says to a call given `arguments`, for a tool holding `fixture`.

    Return the exception the tool raises (or None), the value it returns (or None), and what
    changing the arguments let go of, for the caller to free outside the guard.
    """
    released: list[object] = []
    if answer.get("mutate"):
        mutate_deeply(arguments, released)
    if "raise" in answer:
        return make_raised(answer["raise"]), None, released
    if answer.get("gives_back") == "fixture":
        return None, fixture, released
    if answer.get("gives_back") == "arguments":
        return None, arguments, released
    return None, build(answer["return"]), released
