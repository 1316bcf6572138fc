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
