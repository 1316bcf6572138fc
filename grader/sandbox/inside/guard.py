"""The guard: an audit hook that holds the channel, its key and every record of the worker.

`install()` runs before any student code. It reads the first request (the key, the user to
become, the limits), shuts the process in, and adds `Guard.hook` with `sys.addaudithook`. From
then on the loop (`grader.sandbox.inside.loop`) asks for work and reports through `sys.audit`
events, and tool calls reach the trusted side the same way. Nothing refers to the guard but the
interpreter's list of hooks, so student code can only reach it through the paths the hook
itself refuses: gc listings, other threads' frames, profile and trace hooks, frames and
tracebacks of the guard's own code, ctypes, new processes, and the /proc files that show
descriptors and memory. A refused operation raises an error with a plain message and marks
every later observation `forbidden`.

While the hook handles a `grader.` event no student code runs: the cyclic collector is off,
signal handlers and threads cannot be installed, objects are read through exact built-in
methods only, and what the guard lets go of is handed back to the loop to free. The guard
checks where an event comes from and what it may do; its Steps (steps.py) do the work.
"""

from __future__ import annotations

import builtins
import gc
import sys
import types
from typing import TYPE_CHECKING, Any

from grader.sandbox.inside import seal
from grader.sandbox.inside.channel import MEMORY_REPLY, REPLY_FD, REQUEST_FD, Channel
from grader.sandbox.inside.guard_rules import (
    CHECKPOINTS,
    CTYPES,
    FRAME_ATTRIBUTES,
    FRAME_EVENTS,
    LOOP_EVENTS,
    NESTED,
    PROC,
    REFUSED,
    WATCHED,
    reaches_frames,
    snapshot,
    unchanged,
)
from grader.sandbox.inside.picture import type_name
from grader.sandbox.inside.resolve import path_text, resolved
from grader.sandbox.inside.steps import Steps

if TYPE_CHECKING:
    from grader.sandbox.inside.guard_rules import Snapshot
    from grader.sandbox.inside.protocol import Hello

# Private built-ins: see grader/sandbox/inside/picture.py.
__builtins__ = dict(vars(builtins))  # type: ignore[assignment]

# Every module function the guard calls, bound before student code: a submission can replace
# sys.getrecursionlimit or sys._getframe, and what it put there would run with the guard's
# frames (its key) below it, before the guard is busy, or while it reads a frame itself; a
# replaced types.FrameType would let the guard's own frames pass for something else.
_get_limit = sys.getrecursionlimit
_set_limit = sys.setrecursionlimit
_getframe = sys._getframe
_collecting = gc.isenabled
_stop_collecting = gc.disable
_start_collecting = gc.enable
_FRAME = types.FrameType
_index = int.__index__  # an int subclass's exact value, without its own methods
_CHANNEL = (REQUEST_FD, REPLY_FD)
_HEADROOM = 200  # frames the guard may use beyond the student's recursion limit


class Guard:
    """The hook and everything it keeps; one per worker, reachable only by the interpreter."""

    def __init__(self, channel: Channel, own_files: frozenset[str | None]) -> None:
        self.channel = channel
        self.own_files = own_files
        self.busy = False
        # Set while the guard itself reads a frame; any other frame read while busy is refused.
        self.reading_frame = False
        # The student's recursion limit, when it could not be restored.
        self.owed_limit: int | None = None
        self.loop_frame: types.FrameType | None = None
        # What the loop's globals and built-ins held before student code.
        self.loop_globals: Snapshot | None = None
        self.forbidden: list[str] = []
        self.steps = Steps(channel, self.forbidden, self.forbid)

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        """Answer the loop's events, refuse the forbidden ones, and ignore the rest quickly.

        Most events (`builtins.id`, `exec`, `import`...) return on the first lines, which call
        nothing in Python: student code deep in recursion raises them too, and a Python call
        could fail there. An event the guard must check fails closed if checking fails.
        """
        if self.busy:
            if event in FRAME_EVENTS and not self.reading_frame and reaches_frames(event, args):
                # Student code is running inside the guard, through a special method the guard
                # should never have called: it must not reach the guard's frames (its key, its
                # records). The guard keeps to exact built-in methods; this is the backstop.
                raise self.forbid("running code while the grader reads a value")
            return  # the guard's own doing
        # Slices and set lookups, not str methods: even a built-in method call counts as depth.
        if event[:7] == "grader.":
            thrown = self.answer(event, args)
        elif event in WATCHED or event[:7] == "ctypes.":
            if event == "object.__getattr__" and args[1] not in FRAME_ATTRIBUTES:
                return
            if event == "import" and args[0] in CTYPES:
                # Unavailable, not forbidden: a library may try ctypes and do without it.
                raise ImportError("ctypes is not available to graded code")
            what = REFUSED.get(event) or self.refusal(event, args)
            thrown = None if what is None else self.forbid(what)
        else:
            return
        if thrown is not None:
            raise thrown

    def answer(self, event: str, args: tuple[Any, ...]) -> BaseException | None:
        """Handle one of the guard's own events with room to work, however deep the caller is."""
        limit = _get_limit()
        _set_limit(limit + _HEADROOM)
        self.busy = True
        collecting = _collecting()
        _stop_collecting()
        try:
            if self.owed_limit is not None:
                limit = self.student_limit(limit)
            caller = None
            if event in LOOP_EVENTS or event == NESTED:  # checked for where they come from
                caller = self.frame_at(2)  # answer <- hook <- the caller
            return self.handle(event, args, caller)
        finally:
            self.busy = self.reading_frame = False
            if collecting:
                _start_collecting()
            try:
                _set_limit(limit)
            except BaseException:  # deeper than the limit right now: put it back next time
                self.owed_limit = limit

    def frame_at(self, depth: int) -> types.FrameType:
        """Return the frame `depth` calls below the caller's, read as the guard's own reading."""
        self.reading_frame = True
        try:
            return _getframe(depth + 1)
        finally:
            self.reading_frame = False

    def student_limit(self, limit: int) -> int:
        """Return the student's own recursion limit, `limit` unless an earlier event owes one."""
        if self.owed_limit is not None and limit == self.owed_limit + _HEADROOM:
            limit = self.owed_limit
        self.owed_limit = None
        return limit

    def refusal(self, event: str, args: tuple[Any, ...]) -> str | None:
        """Say what a conditionally refused event does, or None when it is allowed."""
        if event.startswith("ctypes."):
            return "ctypes"
        if event == "object.__getattr__" and args[1] in FRAME_ATTRIBUTES:
            return self.frame_refusal(args)
        if event in ("open", "os.listdir", "os.scandir") and args:
            return self.path_refusal(args[0])
        return None

    def frame_refusal(self, args: tuple[Any, ...]) -> str | None:
        self.busy = self.reading_frame = True
        try:
            frame = getattr(args[0], args[1], None)
            mine = type(frame) is _FRAME and frame.f_code.co_filename in self.own_files
        finally:
            self.busy = self.reading_frame = False
        return "looking at the grader's own frames" if mine else None

    def path_refusal(self, path: Any) -> str | None:
        if issubclass(type(path), int):  # a descriptor; an int subclass's own == is not asked
            return "opening the grader's channel" if _index(path) in _CHANNEL else None
        self.busy = True
        try:
            text = path_text(path)
            real = resolved(text) if text is not None else ""
        except (OSError, ValueError):
            real = ""
        finally:
            self.busy = False
        return "reading /proc" if real is not None and real.startswith(PROC) else None

    def forbid(self, what: str) -> RuntimeError:
        """Note a refused operation and return the error to raise in its place."""
        self.forbidden.append(what)
        return RuntimeError(
            f"The grader does not allow {what} in graded code, so this test cannot pass. "
            "Remove it: invoke_tool needs only its arguments."
        )

    def handle(
        self, event: str, args: tuple[Any, ...], caller: types.FrameType | None
    ) -> BaseException | None:
        """Handle one `grader.` event; return an exception to raise in the caller, or None.

        `caller` is the frame that sent one of LOOP_EVENTS or NESTED, and None for any other.
        """
        try:
            if event == "grader.call":
                thrown = self.steps.call(args[0], args[1])
                if self.steps.handed is not None:  # an order: only that stand-in may report
                    self.steps.handed.frame = self.frame_at(3)  # handle <- answer <- hook <- it
                    self.steps.handed = None
                return thrown
            if event == NESTED and caller is not None:
                return self.steps.nested(caller, args)
            if event == "grader.forbid":
                return self.forbid(args[0] if type(args[0]) is str else "this")
            if caller is None or not self.from_loop(caller):
                return self.forbid("sending the grader's own events")
            checked = event in CHECKPOINTS and not self.steps.batch_continues()
            if checked and not self.loop_intact():
                self.forbid("changing the grader's own code")
            getattr(self.steps, event[7:])(*args)
        except MemoryError:
            self.steps.records = self.steps.batch = None
            self.channel.send_text(MEMORY_REPLY)
        except BaseException as error:  # the guard must always answer
            self.steps.records = self.steps.batch = None
            self.channel.send({"error": f"the worker failed: {type_name(type(error))}"})
        return None

    def from_loop(self, caller: types.FrameType) -> bool:
        """Say whether `caller` is the loop's frame (the first to send an event is taken)."""
        if self.loop_frame is None:
            self.loop_frame = caller
            self.loop_globals = snapshot(caller.f_globals)
        return caller is self.loop_frame

    def loop_intact(self) -> bool:
        """Say whether the loop's module and its built-ins are as they were before student code."""
        assert self.loop_frame is not None and self.loop_globals is not None  # from_loop took them
        return unchanged(self.loop_frame.f_globals, self.loop_globals)


def install() -> None:
    """Read the first request, shut the worker in, and add the guard's hook."""
    channel = Channel()
    hello: Hello = channel.receive()
    channel.key = hello["key"].encode("ascii")
    seal.shut_in(hello)
    own_files = frozenset(
        module.__file__
        for name, module in sys.modules.items()
        if name.startswith("grader.")
        and getattr(module, "__file__", None)
        and not name.endswith((".loop", ".faults"))
    )
    guard = Guard(channel, own_files)
    seal.hide_grader_modules()
    sys.addaudithook(guard.hook)
    channel.send({"ready": True})  # the trusted side starts the worker's clock here
