"""The worker's plain loop: load the submission, call `invoke_tool` as the guard says, report.

Student code runs above these frames and may walk down to them (logging and `traceback` do), so
they hold nothing but what `invoke_tool` is given anyway. Requests come in, and observations go
out, through `sys.audit` events that only the guard's hook answers; it takes the lifecycle events
only from this loop's own frame, and the report of a call of `invoke_tool` made inside a tool
only from `nest`, run by the stand-in it was ordered to, so a submission that sends them itself
is refused.
"""

from __future__ import annotations

import builtins
import contextlib
import sys
import types
from typing import TYPE_CHECKING, Any

from course.carry.execute import run_cells
from course.checks.visible import visible_checks_json

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import TextIO

    Tool = Callable[[object], object]  # what invoke_tool is given for each tool
    # What the guard hands a stand-in whose tool calls invoke_tool itself: the inner request,
    # each inner tool's (key, name, falsy), the keyword arguments, and the function to call.
    Order = tuple[object, tuple[tuple[str, str, bool], ...], dict[str, int], Callable[..., object]]

# Private built-ins: a submission that patches `builtins` cannot change how this loop runs.
__builtins__ = dict(vars(builtins))

_STRIP = BaseException.with_traceback


def serve() -> None:
    """Run requests until the trusted side closes the channel (everything inline: one frame)."""
    # Locals, bound before any student code runs: student code can reach this module's globals
    # (through a stand-in's __globals__ or this frame's f_globals), never this frame's locals.
    audit, modules, streams, stand_in = sys.audit, sys.modules, (sys.stdout, sys.stderr), tool
    module_type, run, flushing, get = types.ModuleType, run_cells, flush, dict.get
    check, times, escaped = visible_checks_json, range, BaseException
    invoke_tool: Any = None  # whatever the submission defined under that name
    while True:
        box: list[Any] = [None, None]  # the guard puts the work in it
        audit("grader.next", box)
        message, box = box[0], None
        if message is None:
            return
        if message["op"] == "load":
            module = module_type("submission")
            modules["submission"] = modules["__main__"] = module
            try:
                outcome = run(message["units"], module.__dict__)
            except escaped as error:  # sys.exit at import is the student's to hear about
                outcome = error
            if message["check"]:
                try:
                    checked = check(module.__dict__)
                except escaped:  # the checks' own text says how each one went
                    checked = None
                flushing(streams)
                audit("grader.checked", None, outcome, checked)
                outcome = module = checked = None
                continue
            invoke_tool = get(module.__dict__, "invoke_tool")
            flushing(streams)
            audit("grader.loaded", None, outcome, invoke_tool)
            outcome = module = None
            continue
        falsy = message["falsy"]
        tools = {name: stand_in(name, audit, name in falsy) for name in message["tools"]}
        request, keyword = message["request"], message["keyword"]
        audit("grader.begin", None, tools)
        for _ in times(message["repeat"]):
            try:
                envelope = invoke_tool(request, tools, **keyword)
            except escaped as error:  # any escape is data for the tests
                audit("grader.raised", None, error)
                error = None
                break
            audit("grader.returned", None, envelope)
            envelope = None
        # After the guard has described the scenario: flushing may run student code. Only
        # before a reply: a batch's scenarios are flushed together, before its last one's end.
        if message["flush"]:
            flushing(streams)
        box = [None, None]
        audit("grader.end", box)
        # Letting go here, not in the guard: a student's __del__ runs above this frame.
        box = tools = request = keyword = message = None


def flush(streams: Iterable[TextIO]) -> None:
    """Flush what the student printed, here rather than in the guard: a stream may run code."""
    for stream in streams:
        # A broken stream must not stop the report.
        with contextlib.suppress(BaseException):
            stream.flush()


def tool(key: str, audit: Callable[..., None], falsy: bool = False, name: str = "") -> Tool:
    """Return the callable that stands for one tool: each call is answered by the trusted side.

    The guard knows the tool by `key`; its own name is `name` (the key, unless given), which
    differs for a tool of a table that a tool's own call of invoke_tool hands out.
    With `falsy`, it is a callable object whose truth value is False: a handler is any callable,
    and `if not handler` must not take it for a missing one.
    """

    def call(arguments: object) -> object:
        # The guard puts the result in it, or an order to call invoke_tool (box[3]).
        box: list[Any] = [arguments, None, 0, None]
        try:
            audit("grader.call", box, key)
        except BaseException as error:  # the tool's exception, raised for it by the guard
            depth, box = box[2], None
            # Without the guard's frames: the student's traceback starts at this call, and
            # goes as deep as the tool says its error was raised.
            raise_at_depth(_STRIP(error, None), depth if type(depth) is int else 0)
        result, answered, order, box = box[0], box[1] is not None, box[3], None
        if order is not None:  # the tool calls invoke_tool itself, which the guard cannot do
            return nest(order, audit)
        if not answered:  # the guard could not take the call (say, deep in recursion)
            raise RuntimeError("The tool could not be called here.")
        return result

    call.__name__ = call.__qualname__ = name or key
    return FalsyTool(call) if falsy else call


def nest(order: Order, audit: Callable[..., None]) -> object:
    """Call invoke_tool from inside a tool, as the guard's order says; report what it gave.

    Here, not in the guard: invoke_tool is student code. What the inner call raised passes
    through this tool, as through a handler that does not catch it; once it has returned, the
    guard says what the tool then does. The guard takes a report only from this function's own
    code, called by the very stand-in the order was handed to, so student code cannot forge one.
    """
    request, tools, keyword, invoke_tool = order
    handed = {name: tool(key, audit, falsy, name) for key, name, falsy in tools}
    box: list[Any] = [None, None, 0]  # the guard puts what the tool returns in it
    try:
        envelope = invoke_tool(request, handed, **keyword)
    except BaseException as error:
        audit("grader.nested", box, order, "raised", error)
        raise
    try:
        audit("grader.nested", box, order, "returned", envelope)
    except BaseException as error:  # the tool's own exception, raised for it by the guard
        depth, box = box[2], None
        raise_at_depth(_STRIP(error, None), depth if type(depth) is int else 0)
    result, answered, box = box[0], box[1] is not None, None
    if not answered:  # the guard could not take the report (say, deep in recursion)
        raise RuntimeError("The tool could not be called here.")
    return result


def raise_at_depth(error: BaseException, depth: int) -> None:
    """Raise `error` from `depth` frames further down, as a tool's deep helper would."""
    if depth > 0:
        raise_at_depth(error, depth - 1)
    raise error


class FalsyTool:
    """A tool that is a callable object whose truth value is False."""

    __slots__ = ("_call",)

    def __init__(self, call: Tool) -> None:
        self._call = call

    def __call__(self, arguments: object) -> object:
        return self._call(arguments)

    def __bool__(self) -> bool:
        return False


def refuse(what: str) -> Callable[..., None]:
    """Return a stand-in for a forbidden function: calling it is refused by the guard."""

    def refused(*_args: object, **_kwargs: object) -> None:
        sys.audit("grader.forbid", what)

    return refused
