"""A batch of scenarios inside the guard: run one after another, answered in one reply.

The batch carries its tools' recipes, so the guard answers each tool call itself (by the same
reading as the trusted side, grader/sandbox/inside/recipes.py) and counts it; the counts, the
arguments when asked for, and what the tools raised go back with each scenario's facts.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

from grader.sandbox.inside.picture import tag
from grader.sandbox.inside.recipes import answer_call

if TYPE_CHECKING:
    from grader.sandbox.inside.protocol import ObservationData, RunRequest, ToolAnswer, ToolSpec
    from grader.sandbox.inside.report import Records

# Private built-ins: see grader/sandbox/inside/picture.py.
__builtins__ = dict(vars(builtins))  # type: ignore[assignment]


class Batch:
    """The scenarios of one BatchRequest still to run, and the facts of those already run."""

    def __init__(self, scenarios: list[RunRequest]) -> None:
        self.waiting = scenarios[::-1]  # popped from the end: the first scenario first
        self.observations: list[ObservationData] = []

    def take(self) -> RunRequest | None:
        """Return the next scenario to run, or None when every one has run."""
        return self.waiting.pop() if self.waiting else None


def answer_locally(
    records: Records, specs: dict[str, ToolSpec], name: str, arguments: object
) -> ToolAnswer:
    """Count one call of the tool `name` in `records`; return what its recipe says it does."""
    count = records.calls[name] = records.calls[name] + 1
    if records.options.get("received"):
        records.received[name].append(tag(arguments))
    return answer_call(specs[name], count)
