"""The worker's plain loop: load the submission, call `invoke_tool` as the guard says, report.

Student code runs above these frames and may walk down to them (logging and `traceback` do), so
they hold nothing but what `invoke_tool` is given anyway. Requests come in, and observations go
out, through `sys.audit` events that only the guard's hook answers; it takes the lifecycle events
only from this loop's own frame, so a submission that sends them itself is refused.
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


def tool(name: str, audit: Callable[..., None], falsy: bool = False) -> Tool:
    """Return the callable that stands for one tool: each call is answered by the trusted side.

    With `falsy`, it is a callable object whose truth value is False: a handler is any callable,
    and `if not handler` must not take it for a missing one.
    """

    def call(arguments: object) -> object:
        box: list[object] = [arguments, None, 0]  # the guard puts the result in it
        try:
            audit("grader.call", box, name)
        except BaseException as error:  # the tool's exception, raised for it by the guard
            depth, box = box[2], None
            # Without the guard's frames: the student's traceback starts at this call, and
            # goes as deep as the tool says its error was raised.
            raise_at_depth(_STRIP(error, None), depth if type(depth) is int else 0)
        result, answered, box = box[0], box[1] is not None, None
        if not answered:  # the guard could not take the call (say, deep in recursion)
            raise RuntimeError("The tool could not be called here.")
        return result

    call.__name__ = call.__qualname__ = name
    return FalsyTool(call) if falsy else call


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
