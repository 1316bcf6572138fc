"""The loop's steps as the guard answers them: work handed out, scenarios kept, replies sent.

The guard (grader/sandbox/inside/guard.py) passes each of the loop's events here once it has
checked that the loop sent it; a tool call comes here from the stand-in that made it. Student
code never runs while a step is answered: objects are read through exact built-in methods, and
what a step lets go of is handed back to the loop to free.
"""

from __future__ import annotations

import builtins
import os
import time
import types
from typing import TYPE_CHECKING, Any

from grader.sandbox.inside.channel import MEMORY_REPLY, Channel
from grader.sandbox.inside.kinds import build
from grader.sandbox.inside.nesting import answer_report, hand_order, take_report
from grader.sandbox.inside.picture import tag, type_name
from grader.sandbox.inside.recipes import carry_out
from grader.sandbox.inside.replies import check_reply, load_reply
from grader.sandbox.inside.report import (
    Records,
    close_coroutines,
    describe,
    exception_state,
    note_return,
    shares_with_request,
)
from grader.sandbox.inside.scenario_batch import Batch, answer_locally

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType

    from grader.sandbox.inside.nesting import Pending
    from grader.sandbox.inside.protocol import (
        BatchRequest,
        CheckReply,
        LoadReply,
        LoadRequest,
        RunRequest,
        Tagged,
        ToolAnswer,
        WorkerFacts,
    )

# Private built-ins: see grader/sandbox/inside/picture.py.
__builtins__ = dict(vars(builtins))  # type: ignore[assignment]

# Bound before student code, which may replace them in their modules (see guard.py).
_monotonic = time.monotonic
_NAMESPACE = types.SimpleNamespace
_exit = os._exit


class Steps:
    """What the guard keeps of the work: the submission's state, the running scenario, a batch."""

    def __init__(
        self, channel: Channel, forbidden: list[str], forbid: Callable[[str], RuntimeError]
    ) -> None:
        """Answer on `channel`; `forbidden` is the guard's list, `forbid` its way to add to it."""
        self.channel = channel
        self.forbidden = forbidden
        self.forbid = forbid
        self.ready = False  # a submission is loaded and defines invoke_tool
        # The running scenario's, from the loop's `next` event to its `end`: the loop sends its
        # events in that order, and the handlers of those between assert as much for mypy.
        self.records: Records | None = None
        self.batch: Batch | None = None  # the BatchRequest being run, if any
        self.invoke_tool: object = None  # the submission's, for the tools that call it (nesting)
        # The order the last tool call was answered with, for the guard to note its frame.
        self.handed: Pending | None = None
        # The envelopes the running program's calls returned so far (RunRequest "program"),
        # kept between its scenarios and handed to the loop to let go of when the next starts.
        self.held: list[object] = []

    def batch_continues(self) -> bool:
        """Say whether a batch has scenarios left: the loop is checked before its one reply."""
        return self.batch is not None and bool(self.batch.waiting)

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
            if "arguments_made" in message:
                message["request"]["arguments"] = build(message["arguments_made"])
            self.records = records = Records(message["request"], message)
            if message.get("program", 0) == 0:  # not a program's later call: let go of the last
                records.released.append(self.held)
                self.held = []
            records.earlier = self.held
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
        reply = load_reply(outcome, invoke_tool, self.forbidden)
        self.ready = not isinstance(reply, str) and reply["loaded"]
        self.invoke_tool = invoke_tool if self.ready else None
        self.reply(reply)

    def checked(self, _box: None, outcome: Any, text: object) -> None:
        """Send the visible checks' text, read as data only: student code ran beside them."""
        self.ready = False
        self.reply(check_reply(outcome, text, self.forbidden))

    def reply(self, reply: LoadReply | CheckReply | str) -> None:
        """Send a reply, or MEMORY_REPLY as it is."""
        if isinstance(reply, str):  # the guard's own object: nothing of the student's to ask
            self.channel.send_text(reply)
        else:
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
        if "program" in records.options:  # its caller keeps them for the program's later calls
            self.held.extend(records.envelopes)
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
        if type(box) is not list or len(box) != 4:
            return self.forbid("calling a tool that way")
        specs = None if records is None else records.specs  # every tool's, in a batch
        if records is None or type(name) is not str:
            return self.forbid("calling a tool outside the test that gave it")
        if name not in (specs or records.stubs):
            # The stand-in of an earlier call's table, kept by the code (a table remembered
            # from the first call): no tool of this call. Counted for rule 7, and it raises,
            # as a handler that is gone would; nothing of the trusted side is reached.
            records.stale_calls += 1
            return RuntimeError("This tool is not in the table of this call of invoke_tool.")
        arguments = box[0]
        if not records.arguments_shared and not records.outcome_only:
            records.arguments_shared = shares_with_request(records, arguments)
        answer: ToolAnswer | None
        if specs is not None:
            answer = answer_locally(records, specs, name, arguments)
            if specs[name]["does"] == "nest":  # the stand-in calls invoke_tool, as ordered
                self.handed = hand_order(records, name, specs[name], self.invoke_tool)
                box[3], box[1] = self.handed.order, True
                return None
        else:
            # When it began to wait: the trusted side does not charge the student for its answer.
            self.channel.send({"call": name, "arguments": tag(arguments), "at": _monotonic()})
            answer = self.channel.receive()
            if answer is None:
                _exit(0)  # the trusted side has gone: nothing is left to report to
        error, result, box[1] = carry_out(answer, arguments, records.fixtures.get(name))
        if error is not None:
            box[2] = answer["raise"].get("depth", 0)  # how deep the stand-in raises it
            if specs is not None:
                records.raised_types.append(type_name(type(error)))
            records.thrown.append(error)
            records.thrown_states.append(exception_state(error))
            return error
        records.note_built(answer.get("return"), result)
        records.handed.append(result)
        box[0] = result
        return None

    def nested(self, caller: FrameType, args: tuple[Any, ...]) -> BaseException | None:
        """Take the report of a call of invoke_tool a tool made; answer what the tool does then."""
        records = self.records
        pending = None if records is None else take_report(records, caller, args)
        if records is None or pending is None:
            return self.forbid("sending the grader's own events")
        return answer_report(records, pending, args[0], args[2], args[3])

    def build_value(self, records: Records, recipe: Tagged) -> object:
        """Build a value from a recipe; note one a maker built, for `close_coroutines`."""
        value = build(recipe)
        records.note_built(recipe, value)
        return value
