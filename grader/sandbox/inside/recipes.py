"""What a tool does at one of its calls, read from its recipe: the one reading for both sides.

The trusted side answers a scenario's tool calls with it one by one (grader/sandbox/handlers.py);
in a batch the guard answers them itself from the recipes the batch carries.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

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
