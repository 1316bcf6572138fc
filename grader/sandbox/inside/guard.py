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
methods only, and what the guard lets go of is handed back to the loop to free.
"""

from __future__ import annotations

import builtins
import gc
import os
import sys
import time
import types
from typing import TYPE_CHECKING, Any

from grader.sandbox.inside import seal
from grader.sandbox.inside.batch import Batch, answer_locally
from grader.sandbox.inside.channel import MEMORY_REPLY, REPLY_FD, REQUEST_FD, Channel
from grader.sandbox.inside.kinds import build, made_by_maker, make_raised, mutate_deeply
from grader.sandbox.inside.picture import tag, type_name
from grader.sandbox.inside.report import (
    Records,
    close_coroutines,
    describe,
    exception_state,
    note_return,
    shares_with_request,
)
from grader.sandbox.inside.resolve import path_text, resolved
from grader.sandbox.inside.rules import (
    CHECKPOINTS,
    CTYPES,
    FRAME_ATTRIBUTES,
    FRAME_EVENTS,
    LOOP_EVENTS,
    PROC,
    REFUSED,
    WATCHED,
    reaches_frames,
    snapshot,
    unchanged,
)

if TYPE_CHECKING:
    from grader.sandbox.inside.protocol import (
        BatchRequest,
        CheckReply,
        Hello,
        LoadRequest,
        RunRequest,
        Tagged,
        ToolAnswer,
        WorkerFacts,
    )
    from grader.sandbox.inside.rules import Snapshot

# Private built-ins: see grader/sandbox/inside/picture.py.
__builtins__ = dict(vars(builtins))  # type: ignore[assignment]

_monotonic = time.monotonic  # bound before student code, which may patch the time module
# The same for every module function the guard calls: a submission can replace sys.getrecursionlimit
# or sys._getframe, and what it put there would run with the guard's frames (its key) below it,
# before the guard is busy, or while it reads a frame itself; a replaced types.FrameType would
# let the guard's own frames pass for something else.
_get_limit = sys.getrecursionlimit
_set_limit = sys.setrecursionlimit
_getframe = sys._getframe
_collecting = gc.isenabled
_stop_collecting = gc.disable
_start_collecting = gc.enable
_FRAME = types.FrameType
_NAMESPACE = types.SimpleNamespace
_exit = os._exit
_index = int.__index__  # an int subclass's exact value, without its own methods
_CHANNEL = (REQUEST_FD, REPLY_FD)
_HEADROOM = 200  # frames the guard may use beyond the student's recursion limit
# The most text the visible checks may send back (a check's text is a few hundred characters).
_CHECKS_TEXT_LIMIT = 1 << 20
# How course.carry.execute.run_cells words a cell that stopped with a MemoryError.
_MEMORY_PROBLEM = " stopped with MemoryError "


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
        self.ready = False  # a submission is loaded and defines invoke_tool
        # The running scenario's, from the loop's `next` event to its `end`: the loop sends its
        # events in that order, and the handlers of those between assert as much for mypy.
        self.records: Records | None = None
        self.batch: Batch | None = None  # the BatchRequest being run, if any
        self.forbidden: list[str] = []

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
            if event in LOOP_EVENTS:  # only they are checked for where they come from
                self.reading_frame = True
                caller = _getframe(2)  # answer <- hook <- the caller
                self.reading_frame = False
            return self.handle(event, args, caller)
        finally:
            self.busy = self.reading_frame = False
            if collecting:
                _start_collecting()
            try:
                _set_limit(limit)
            except BaseException:  # deeper than the limit right now: put it back next time
                self.owed_limit = limit

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

        `caller` is the frame that sent one of LOOP_EVENTS, and None for any other event.
        """
        try:
            if event == "grader.call":
                return self.call(args[0], args[1])
            if event == "grader.forbid":
                return self.forbid(args[0] if type(args[0]) is str else "this")
            if caller is None or not self.from_loop(caller):
                return self.forbid("sending the grader's own events")
            if event in CHECKPOINTS and not self.batch_continues() and not self.loop_intact():
                self.forbid("changing the grader's own code")
            getattr(self, event[7:])(*args)
        except MemoryError:
            self.records = self.batch = None
            self.channel.send_text(MEMORY_REPLY)
        except BaseException as error:  # the guard must always answer
            self.records = self.batch = None
            self.channel.send({"error": f"the worker failed: {type_name(type(error))}"})
        return None

    def from_loop(self, caller: types.FrameType) -> bool:
        """Say whether `caller` is the loop's frame (the first to send an event is taken)."""
        if self.loop_frame is None:
            self.loop_frame = caller
            self.loop_globals = snapshot(caller.f_globals)
        return caller is self.loop_frame

    def batch_continues(self) -> bool:
        """Say whether a batch has scenarios left: the loop is checked before its one reply."""
        return self.batch is not None and bool(self.batch.waiting)

    def loop_intact(self) -> bool:
        """Say whether the loop's module and its built-ins are as they were before student code."""
        assert self.loop_frame is not None and self.loop_globals is not None  # from_loop took them
        return unchanged(self.loop_frame.f_globals, self.loop_globals)

    def next(self, box: list[Any], *_rest: object) -> None:
        """Give the loop its next piece of work (None when the trusted side has finished)."""
        message: LoadRequest | RunRequest | BatchRequest | None
        while (message := self.next_message()) is not None:
            if message["op"] == "load":
                units = [_NAMESPACE(**unit) for unit in message["units"]]
                box[0] = {"op": "load", "units": units, "check": bool(message.get("check"))}
                return
            if not self.ready:
                self.channel.send({"error": "no submission is loaded"})
                continue
            if message["op"] == "batch":
                self.batch = Batch(message["scenarios"])
                continue
            self.records = records = Records(message["request"], message)
            records.fixtures = {
                name: self.build_value(records, recipe)
                for name, recipe in message.get("fixtures", {}).items()
            }
            keyword: dict[str, int] = {}
            if "max_result_bytes" in message:
                keyword["max_result_bytes"] = message["max_result_bytes"]
            box[0] = {
                "op": "run",
                "request": records.request,
                "tools": list(message["tools"]),
                "falsy": list(message.get("falsy", ())),
                "keyword": keyword,
                "repeat": message.get("repeat", 1),
                # The student's output is flushed before a reply, so it is all in its pipe when
                # the reply comes: in a batch, only before the last scenario's end.
                "flush": self.batch is None or not self.batch.waiting,
            }
            return
        box[0] = None

    def next_message(self) -> LoadRequest | RunRequest | BatchRequest | None:
        """Return the batch's next scenario, or else the trusted side's next request."""
        if self.batch is not None:
            scenario = self.batch.take()
            if scenario is not None:
                return scenario
            self.channel.send({"observations": self.batch.observations})  # an empty batch
            self.batch = None
        message: LoadRequest | RunRequest | BatchRequest | None = self.channel.receive()
        return message

    def loaded(self, _box: None, outcome: Any, invoke_tool: object) -> None:
        """Tell the trusted side whether the submission loaded and defined invoke_tool."""
        self.ready = False
        if issubclass(type(outcome), BaseException):
            if type(outcome) is MemoryError:
                self.channel.send_text(MEMORY_REPLY)
                return
            reason = (
                f"Your code stopped with {type_name(type(outcome))} while it was being loaded, "
                "so none of it could be tested. Remove calls such as sys.exit() or input() "
                "from the top level of your code."
            )
            self.channel.send({"loaded": False, "reason": reason, "forbidden": self.forbidden})
            return
        problems = [str.__str__(problem) for problem in outcome]
        if not callable(invoke_tool) and any(_MEMORY_PROBLEM in p for p in problems):
            self.channel.send_text(MEMORY_REPLY)  # out of memory before invoke_tool existed
            return
        if not callable(invoke_tool):
            problems.append(
                "No function named invoke_tool was defined, so there was nothing to test. "
                "Check its name and that the cell or file that defines it runs without errors."
            )
            reason = " ".join(problems)
            self.channel.send({"loaded": False, "reason": reason, "forbidden": self.forbidden})
            return
        self.ready = True
        self.channel.send({"loaded": True, "problems": problems, "forbidden": self.forbidden})

    def checked(self, _box: None, outcome: Any, text: object) -> None:
        """Send the visible checks' text, read as data only: student code ran beside them."""
        self.ready = False
        if type(outcome) is MemoryError:
            self.channel.send_text(MEMORY_REPLY)
            return
        if issubclass(type(outcome), BaseException):
            problems = [f"Your code stopped with {type_name(type(outcome))} while it was loaded."]
        else:
            problems = [str.__str__(problem) for problem in outcome]
        checks = text if type(text) is str and len(text) <= _CHECKS_TEXT_LIMIT else None
        reply: CheckReply = {"checks": checks, "problems": problems, "forbidden": self.forbidden}
        self.channel.send(reply)

    def begin(self, _box: None, tools: dict[str, object]) -> None:
        assert self.records is not None
        self.records.tools = tools
        self.records.stubs = dict(tools)

    def returned(self, _box: None, envelope: object) -> None:
        assert self.records is not None
        self.records.envelopes.append(envelope)
        note_return(self.records, envelope)
        if len(self.records.envelopes) >= self.records.options.get("repeat", 1):
            self.describe()

    def raised(self, _box: None, error: BaseException) -> None:
        assert self.records is not None
        self.records.raised = error
        self.describe()

    def describe(self) -> None:
        """Describe the scenario now, as `invoke_tool` returns: no student code has run since."""
        records = self.records
        assert records is not None
        raised = records.raised
        own = any(raised is error for error in records.thrown)  # a tool's, passed on
        if raised is not None and type(raised) is MemoryError and not own:
            records.observation = MEMORY_REPLY
            return
        records.observation = describe(records, records.released)

    def end(self, box: list[Any]) -> None:
        """Send the observation; hand the scenario's objects to the loop to let go of."""
        records, self.records = self.records, None
        assert records is not None
        box[1] = [records, records.released]
        close_coroutines(records)
        if records.observation is None:
            self.describe_late(records)
        if records.observation == MEMORY_REPLY:
            self.batch = None
            self.channel.send_text(MEMORY_REPLY)
            return
        assert type(records.observation) is dict  # described, by describe_late if not before
        observation: WorkerFacts = {**records.observation, "forbidden": list(self.forbidden)}
        if self.batch is None:
            self.channel.send({"observation": observation})
            return
        self.batch.observations.append(
            {
                **observation,
                "calls": records.calls,
                "received": records.received,
                "handler_raised": records.raised_types,
            }
        )
        if not self.batch.waiting:
            self.channel.send({"observations": self.batch.observations})
            self.batch = None

    def describe_late(self, records: Records) -> None:
        """Describe a scenario `invoke_tool` was never called in (a `repeat` of 0)."""
        self.records = records
        try:
            self.describe()
        finally:
            self.records = None

    def call(self, box: Any, name: object) -> BaseException | None:
        """Ask the trusted side what the tool does, do it, and leave the result in `box`."""
        records = self.records
        if type(box) is not list or len(box) != 3:
            return self.forbid("calling a tool that way")
        if records is None or type(name) is not str or name not in records.stubs:
            return self.forbid("calling a tool outside the test that gave it")
        arguments = box[0]
        if not records.arguments_shared and not records.outcome_only:
            records.arguments_shared = shares_with_request(records, arguments)
        specs = records.options.get("specs")
        answer: ToolAnswer | None
        if specs is not None:
            answer = answer_locally(records, specs, name, arguments)
        else:
            # When it began to wait: the trusted side does not charge the student for its answer.
            self.channel.send({"call": name, "arguments": tag(arguments), "at": _monotonic()})
            answer = self.channel.receive()
            if answer is None:
                _exit(0)  # the trusted side has gone: nothing is left to report to
        released: list[object] = []
        box[1] = released
        if answer.get("mutate"):
            mutate_deeply(arguments, released)
        if "raise" in answer:
            error = make_raised(answer["raise"])
            box[2] = answer["raise"].get("depth", 0)  # how deep the stand-in raises it
            if specs is not None:
                records.raised_types.append(type_name(type(error)))
            records.thrown.append(error)
            records.thrown_states.append(exception_state(error))
            return error
        if answer.get("gives_back") == "fixture":
            result = records.fixtures.get(name)
        elif answer.get("gives_back") == "arguments":
            result = arguments
        else:
            result = self.build_value(records, answer["return"])
        records.handed.append(result)
        box[0] = result
        return None

    def build_value(self, records: Records, recipe: Tagged) -> object:
        """Build a value from a recipe; note one a maker built, for `close_coroutines`."""
        value = build(recipe)
        if made_by_maker(recipe):
            records.made.append(value)
        return value


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
