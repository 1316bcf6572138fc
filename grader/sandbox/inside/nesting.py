"""A tool that calls invoke_tool itself: the order the guard hands its stand-in, and the report.

A "nest" recipe (protocol.Nest) describes a call of invoke_tool made from inside a handler. The
guard cannot make that call, since no student code runs while it answers: it answers the tool's
call with an order instead (the inner request, the inner tools' keys, the budget, and the
submission's own invoke_tool, which the guard noted at load), and the stand-in carries it out
outside the guard (loop.nest). The stand-in then reports, through a `grader.nested` event, the
envelope or what invoke_tool raised; the guard pictures it at once (the outer call may change
the object later) and answers with what the handler then does.

A report is as strictly checked as the loop's own events: it must come from loop.nest's code
(bound here before student code), run by the very stand-in frame the order was handed to, for
an order still waiting; otherwise it is refused. Only the guard imports this module.
"""

from __future__ import annotations

import builtins
import sys
from typing import TYPE_CHECKING, Any

from grader.sandbox.inside.kinds import build
from grader.sandbox.inside.loop import nest
from grader.sandbox.inside.picture import entry, tag, type_name
from grader.sandbox.inside.raising import instance, make_raised
from grader.sandbox.inside.recipes import inner_key, then_answer
from grader.sandbox.inside.report import RECURSION_FOR_REPORTS, exception_state, raised_fact

if TYPE_CHECKING:
    from types import FrameType

    from grader.sandbox.inside.loop import Order
    from grader.sandbox.inside.protocol import ToolSpec
    from grader.sandbox.inside.report import Records

# Private built-ins: see grader/sandbox/inside/picture.py.
__builtins__ = dict(vars(builtins))  # type: ignore[assignment]

# Bound before student code, which may give loop.nest another __code__ or replace these.
_NEST_CODE = nest.__code__
_get_limit = sys.getrecursionlimit
_set_limit = sys.setrecursionlimit
_HOW = ("returned", "raised")


class Pending:
    """An order handed to a stand-in, waiting for its report: for which tool, to which frame."""

    __slots__ = ("frame", "key", "order", "spec")

    def __init__(self, order: Order, key: str, spec: ToolSpec) -> None:
        self.order = order
        self.key = key  # the nest tool's key (recipes.every_tool)
        self.spec = spec
        self.frame: FrameType | None = None  # the stand-in's, noted by the guard


def hand_order(records: Records, key: str, spec: ToolSpec, invoke_tool: object) -> Pending:
    """Return a new order for the nest tool `key`'s call, kept in `records` until reported."""
    inner = spec["nest"]
    tools = tuple(
        (inner_key(key, name), name, bool(recipe.get("falsy")))
        for name, recipe in inner["tools"].items()
    )
    keyword = {"max_result_bytes": inner["max_result_bytes"]} if "max_result_bytes" in inner else {}
    value = build(inner["request"])
    order: Order = (value, tools, keyword, invoke_tool)  # type: ignore[assignment]
    pending = Pending(order, key, spec)
    records.pending.append(pending)
    return pending


def take_report(records: Records, caller: FrameType, args: tuple[Any, ...]) -> Pending | None:
    """Return the waiting order a `grader.nested` event reports on, or None to refuse it.

    Taking it also takes the orders handed out after it that never reported (their stand-ins
    were left by an exception), so each order is reported at most once.
    """
    if len(args) != 4 or type(args[0]) is not list or len(args[0]) != 3:
        return None
    if type(args[2]) is not str or args[2] not in _HOW:  # an exact str: no __eq__ of the student's
        return None
    order, waiting = args[1], records.pending
    place = next((i for i in range(len(waiting) - 1, -1, -1) if waiting[i].order is order), None)
    if place is None:
        return None
    pending = waiting[place]
    if caller.f_code is not _NEST_CODE or caller.f_back is not pending.frame:
        return None
    # Handed to the loop to free: a left stand-in's frame may hold the student's objects.
    records.released.append(waiting[place:])
    del waiting[place:]
    return pending


def answer_report(
    records: Records, pending: Pending, box: list[Any], how: str, what: Any
) -> BaseException | None:
    """Note what an inner call gave, and answer with what its tool does then.

    The tool's result goes in `box`; an exception it raises is returned, for the hook to raise.
    When the inner call raised, nothing is returned: that exception passes through the tool.
    """
    if how == "raised":
        records.nested.append({"at": pending.key, "raised": raised_fact(records, what)})
        return None
    records.nested.append({"at": pending.key, "envelope": _picture(what)})
    records.nested_envelopes.append(what)
    spec = pending.spec
    if spec.get("then") == "return_inner":
        error, result = _inner_value(what)
    else:
        answer = then_answer(spec)
        if "raise" in answer:
            error, result = make_raised(answer["raise"]), None
            box[2] = answer["raise"].get("depth", 0)
        else:
            error, result = None, build(answer["return"])
            records.note_built(answer["return"], result)
    if error is not None:
        records.raised_types.append(type_name(type(error)))
        records.thrown.append(error)
        records.thrown_states.append(exception_state(error))
        return error
    records.handed.append(result)
    box[0], box[1] = result, True
    return None


def _inner_value(envelope: Any) -> tuple[BaseException | None, object]:
    """Return what `envelope["value"]` gives a handler: the value, or the error it raises.

    Read by exact dict methods (picture.entry), so no method of the student's envelope runs.
    """
    if not issubclass(type(envelope), dict):
        return instance(TypeError, "the envelope is not a dict"), None
    for key in dict.keys(envelope):
        if issubclass(type(key), str) and str.__eq__(key, "value"):
            return None, entry(envelope, "value")
    return instance(KeyError, "value"), None


def _picture(value: object) -> object:
    """Return the tagged picture of an envelope, with the depth its picture may need."""
    limit = _get_limit()
    _set_limit(max(limit, RECURSION_FOR_REPORTS))
    try:
        return tag(value)
    finally:
        _set_limit(limit)
