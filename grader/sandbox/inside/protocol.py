"""The messages between a grading job and its worker, and what a worker observes, declared once.

Every message is one line of JSON (grader/sandbox/inside/channel.py); values a test hands out or
gets back travel as tagged pictures (grader/sandbox/inside/picture.py). The trusted side
(grader/sandbox/session.py, observation.py, handlers.py, client.py) and the worker (guard.py,
report.py) both read these declarations, so a field is named and typed in one place.

    job → worker   Hello, then LoadRequest, then a RunRequest per scenario, and a ToolAnswer
                   to each ToolCall; or a BatchRequest of many scenarios at once
    worker → job   LoadReply, a ToolCall per call of a tool, then an ObservationReply per
                   scenario, or one BatchReply per batch (or an ErrorReply, or MEMORY_REPLY of
                   channel.py)

A worker asked to load with `check` set runs the course's visible checks instead of waiting
for scenarios, and answers with a CheckReply (Gradescope shows them as its visible tests).

Standard library only: the worker imports it too.
"""

from typing import Any, Literal, NotRequired, TypedDict, final

# The descriptor on which the job hands its fork server the control socket
# (grader/sandbox/inside/forkserver.py); declared here, where the job can read it without
# importing the worker's own code.
CONTROL_FD = 3

# What one read of a channel pipe asks for: the size of a pipe's buffer, so a read takes all
# there is. Asking for more gains nothing and costs every read an allocation of that size
# (a megabyte is mapped and unmapped by malloc on each read, even for a ten-byte message).
READ_BYTES = 1 << 16

Tagged = Any  # a picture of a value: JSON data (picture.py)


class CodeUnitMessage(TypedDict):
    """One piece of student code (grader.model.CodeUnit) as the worker gets it."""

    label: str
    filename: str
    source: str


class Hello(TypedDict):
    """The first request: the key replies are signed with, the user to become, the limits."""

    key: str
    uid: int | None
    limits: dict[str, int]  # resource names of grader.sandbox.inside.seal -> amounts
    seccomp: NotRequired[str]  # the BPF program, in hex


@final
class ReadyReply(TypedDict):
    """The worker's answer to the Hello, once it is shut in and before any student code."""

    ready: Literal[True]


class LoadRequest(TypedDict):
    op: Literal["load"]
    units: list[CodeUnitMessage]
    check: NotRequired[bool]  # run the visible checks on the loaded code, then stop


# What a tool can do (grader/sandbox/inside/recipes.py reads it; grader/hidden/probes.py builds it).
Does = Literal[
    "return",
    "raise",
    "mutate",
    "mutate_then_raise",
    "flaky",
    "return_fixture",
    "return_arguments",
    "nest",
]
# What a tool that calls invoke_tool itself ("nest") does once the inner call has returned:
# return its own value, return the inner envelope's value, or raise its own exception.
Then = Literal["return", "return_inner", "raise"]


class Nest(TypedDict):
    """The call of invoke_tool a "nest" tool makes from inside its handler, as data."""

    request: Tagged  # the inner request's picture: a new copy is built at every call
    tools: dict[str, "ToolSpec"]  # the inner tools table: ordinary recipes, nests too
    max_result_bytes: NotRequired[int]  # the inner call's own budget, if it is given one


class ToolSpec(TypedDict):
    """A tool's recipe: what the tool does, with what."""

    does: Does
    value: NotRequired[Tagged]  # what it returns: a tagged value, or {"make": a maker, ...}
    exception: NotRequired[str]  # what it raises: a kind of raising.EXCEPTION_KINDS
    message: NotRequired[str]  # what that exception carries
    args: NotRequired[list[Tagged]]  # or, for a kind of raising.EXCEPTION_CLASSES, its arguments
    attributes: NotRequired[dict[str, Tagged]]  # set on that exception once made
    depth: NotRequired[int]  # raised that many frames below the call, as from a deep helper
    fixture: NotRequired[Tagged]  # the object it holds, for return_fixture
    falsy: NotRequired[bool]  # a callable object whose truth value is False
    nest: NotRequired[Nest]  # for "nest": the call of invoke_tool it makes (only in a batch)
    then: NotRequired[Then]  # for "nest": what it does after that call ("value", "exception")


class RunRequest(TypedDict):
    """One scenario: a request for invoke_tool and the names of the tools it is given."""

    op: Literal["run"]
    request: dict[str, Any]
    tools: list[str]  # names only: what each tool does stays on the trusted side
    falsy: list[str]  # the tools that are callable objects whose truth value is False
    fixtures: dict[str, Tagged]  # name -> the object that tool holds, built once per scenario
    repeat: int  # how many times invoke_tool is called
    mutate_value: bool  # change every envelope's value afterwards, to see what it shares
    max_result_bytes: NotRequired[int]
    # Only in a batch: the tools' recipes, which the guard then answers itself, and whether
    # to picture the arguments each call was given (only ownership's scenarios need them).
    specs: NotRequired[dict[str, ToolSpec]]
    received: NotRequired[bool]
    facts: NotRequired[Literal["outcome"]]  # observe only the outcome (ScenarioFacts says which)
    # Its place in a program of calls (0 starts one): the envelopes of the program's earlier
    # calls are kept, the caller's as a real agent loop keeps them, and none may come back.
    program: NotRequired[int]
    # Arguments of hundreds of KiB to MiB: the request holds None, and the worker builds them
    # from this recipe (kinds.large_arguments) rather than read them from the pipe.
    arguments_made: NotRequired[Tagged]


class BatchRequest(TypedDict):
    """Many scenarios at once, run in order in one worker, answered by one BatchReply.

    Each carries its tools' recipes, so no tool call waits for the trusted side: the guard
    counts the calls and reports them in the reply. Scenarios that call no tool cost no more.
    """

    op: Literal["batch"]
    scenarios: list[RunRequest]


# The worker's messages are final: a reply holds no key but its own, so which one it is shows
# by the keys it has ("call" in a message makes it a ToolCall).
@final
class LoadReply(TypedDict):
    loaded: bool
    reason: NotRequired[str]
    problems: NotRequired[list[str]]  # notes for the student about their steps
    forbidden: list[str]


@final
class ToolCall(TypedDict):
    """A tool was called: the trusted side counts it and says what the tool does."""

    call: str
    arguments: Tagged
    at: float  # the worker's monotonic clock when it began to wait for the answer


class Raising(TypedDict):
    kind: str  # an exception kind of grader.sandbox.inside.raising.EXCEPTION_KINDS
    message: str
    args: NotRequired[list[Tagged]]  # its arguments instead of the message ([] for none)
    attributes: NotRequired[dict[str, Tagged]]  # set on it once made
    depth: NotRequired[int]  # frames below the tool's call it is raised from


# The answer to a ToolCall ("raise" and "return" are keywords, so the functional form).
ToolAnswer = TypedDict(
    "ToolAnswer",
    {
        "mutate": bool,  # change the arguments at every depth first
        "raise": NotRequired[Raising],
        "return": NotRequired[Any],  # a picture, or a maker's recipe ({"make": ...})
        # Or the very object the tool holds (its fixture), or the arguments it was given.
        "gives_back": NotRequired[Literal["fixture", "arguments"]],
    },
)


class RaisedFact(TypedDict):
    """What invoke_tool raised instead of returning."""

    type: str
    same_object: bool  # the very exception a tool raised
    changed: NotRequired[list[str]]  # what it carried that changed on the way out


class NestedFact(TypedDict):
    """What one call of invoke_tool made by a "nest" tool gave: an envelope, or what it raised."""

    at: str  # the nest tool's key: its name, or "outer/inner" for a tool of an inner table
    envelope: NotRequired[Tagged]
    raised: NotRequired[RaisedFact]


class ScenarioFacts(TypedDict):
    """What only the scenario's objects could show, measured as invoke_tool returned.

    A scenario that asks only for its outcome (RunRequest "facts") gets the first five; the
    walks of the request and of the values behind the others are left out, and so are they.
    """

    envelopes: list[Tagged]
    raised: RaisedFact | None
    tools_changed: bool
    reused_object: bool  # an envelope is the request, its arguments or the tools dict
    same_envelope: bool  # two calls (a program's earlier ones among them) gave one envelope
    holds_exception: NotRequired[bool]  # an envelope object keeps a tool's exception
    stale_calls: NotRequired[int]  # calls of a tool of an earlier call's table, kept by the code
    request_after: NotRequired[Tagged]  # not in a batch, whose judge reads request_changed
    request_changed: NotRequired[bool]
    value_shared: NotRequired[bool]  # a value shares a list or dict with the request or a tool's
    value_reused: NotRequired[bool]  # two calls' values share a list or dict
    arguments_shared: NotRequired[bool]  # a tool was given an object the request holds or held
    fixtures_after: NotRequired[dict[str, Tagged]]  # with mutate_value
    request_after_mutation: NotRequired[Tagged]  # with mutate_value
    nested: NotRequired[list[NestedFact]]  # the nested calls, as each one ended (if any ran)


class WorkerFacts(ScenarioFacts):
    """The worker's part of an observation: the scenario's facts, and what the code was refused."""

    forbidden: list[str]


@final
class ObservationReply(TypedDict):
    observation: WorkerFacts


class ToolboxFacts(TypedDict):
    """What the trusted side itself knows of a scenario: calls, arguments, what was raised.

    In a batch the guard answers the calls, so it counts them and sends these facts itself.
    """

    calls: dict[str, int]
    received: dict[str, list[Tagged]]
    handler_raised: list[str]


class ObservationData(WorkerFacts, ToolboxFacts):
    """A whole observation, as the hidden tests read it: the worker's facts and the toolbox's."""


@final
class BatchReply(TypedDict):
    observations: list[ObservationData]  # one per scenario, in the order they were sent


@final
class ErrorReply(TypedDict):
    error: str


@final
class CheckReply(TypedDict):
    """The visible checks' results: JSON text made beside student code, so only data to read."""

    checks: str | None  # course.checks.visible's text; None when the checks did not run
    problems: list[str]  # what loading the code said (a cell that stopped, say)
    forbidden: list[str]


JobMessage = Hello | LoadRequest | RunRequest | BatchRequest | ToolAnswer  # what the job writes
Reply = LoadReply | ObservationReply | BatchReply | CheckReply | ErrorReply  # what ends a request
WorkerMessage = Reply | ToolCall | ReadyReply  # all the worker writes (MEMORY_REPLY aside)
