"""What a scenario showed, as the hidden tests read it: an Observation and the key it is kept by.

The worker describes each scenario in plain data (grader/sandbox/inside/protocol.py); the
session (session.py) decodes it into an Observation, and tests of several categories that ask
the very same scenario share one, found by its scenario_key.
"""

import functools
import hashlib
from collections.abc import Mapping
from typing import Literal, overload

from grader.sandbox.client import Allowance
from grader.sandbox.handlers import Scenario
from grader.sandbox.inside.picture import json_text, untag
from grader.sandbox.inside.protocol import ObservationData, Tagged
from grader.sandbox.values import Walk

# The facts of an observation that are yes or no (grader/sandbox/inside/protocol.py).
Flag = Literal[
    "request_changed",
    "tools_changed",
    "reused_object",
    "same_envelope",
    "value_shared",
    "value_reused",
    "arguments_shared",
]


# What tells scenarios apart: the JSON text of one, or a tuple where JSON cannot write it.
ScenarioKey = str | tuple[object, ...]


class Observation:
    """The worker's description of one scenario, decoded, with tolerant access to envelopes."""

    def __init__(
        self,
        data: ObservationData,
        key: ScenarioKey = "",
        digested: bool = False,
        allowance: Allowance | None = None,
    ) -> None:
        """Keep `data`; with `digested`, its digest too, for a caller that keeps verdicts by it.

        Walking its values is charged to `allowance`, the submission's (None: nothing charged).
        """
        self.key = key  # the scenario's key: which call of invoke_tool this observed
        self.digest = _digest(data) if digested else None
        self.data = data
        self.raised = data["raised"]
        self.allowance = allowance

    def walk(self) -> Walk:
        """Return a new walk of this observation's values, charged to its submission's time."""
        return Walk(self.allowance)

    @functools.cached_property
    def envelopes(self) -> list[object]:
        """Every envelope `invoke_tool` returned, rebuilt from its picture when first read.

        Rebuilding is a walk of its own, of at most MAX_NODES nodes a picture: the allowance is
        checked before each.
        """
        envelopes = []
        for picture in self.data["envelopes"]:
            if self.allowance is not None:
                self.allowance.check()
            envelopes.append(untag(picture))
        self.data["envelopes"] = []  # kept decoded only: their pictures would double what is held
        return envelopes

    @property
    def envelope(self) -> object:
        """The first envelope, or None when `invoke_tool` raised instead of returning one."""
        return self.envelopes[0] if self.envelopes else None

    # What a hidden test reads of the observation by name, typed as protocol.py declares it.
    @overload
    def __getitem__(self, name: Flag) -> bool: ...
    @overload
    def __getitem__(self, name: Literal["request_after", "request_after_mutation"]) -> Tagged: ...
    @overload
    def __getitem__(self, name: Literal["fixtures_after"]) -> dict[str, Tagged]: ...
    @overload
    def __getitem__(self, name: Literal["calls"]) -> dict[str, int]: ...
    @overload
    def __getitem__(self, name: Literal["received"]) -> dict[str, list[Tagged]]: ...
    @overload
    def __getitem__(self, name: Literal["handler_raised"]) -> list[str]: ...
    def __getitem__(self, name: str) -> object:
        facts: Mapping[str, object] = self.data
        return facts[name]

    def field(self, name: str, envelope: object = None) -> object:
        """Return one field of an envelope, or MISSING if the envelope is not a dict holding it."""
        envelope = self.envelope if envelope is None else envelope
        if isinstance(envelope, dict) and name in envelope:
            return envelope[name]
        return MISSING


def _digest(data: ObservationData) -> bytes | None:
    """Return a digest of everything the worker showed, or None if its text cannot be written.

    Equal digests, equal observations: the JSON text says every value and type exactly.
    """
    try:
        text = json_text(data)
    except (TypeError, ValueError, RecursionError):
        return None
    return hashlib.blake2b(text.encode("ascii"), digest_size=16).digest()


class _Missing:
    """Stands for a field an envelope lacks, and says so in assertion messages."""

    def __repr__(self) -> str:
        return "<no such field>"


MISSING = _Missing()


_LONG = 256  # characters beyond which a string stands in a walked key by its length and hash


def scenario_key(data: Scenario) -> ScenarioKey:
    """Return a hashable key equal for scenarios that ask the worker the very same thing.

    The key is the JSON text of the scenario's fields in the order of their names, each written
    as it was built: the fields' own order means nothing, but the order of a request's keys or
    of the tools is what invoke_tool sees, and two scenarios differing only there must not share
    an observation. C's encoder writes it faster than a walk in Python can (about a third of
    the time for a hundred rows); what JSON cannot write is walked instead.
    """
    fields = sorted(data.items())  # names are unique: no two values are ever compared
    try:
        return json_text(fields)
    except (TypeError, ValueError):
        return _walked_key(fields)


def _walked_key(data: object) -> tuple[object, ...]:
    """Return a key built node by node, in order; a long string stands by its length and hash."""
    if type(data) is dict:
        items = [(repr(key), type(key).__name__, _walked_key(item)) for key, item in data.items()]
        return (dict, tuple(items))
    if type(data) is list or type(data) is tuple:
        return (type(data), tuple(_walked_key(item) for item in data))
    if type(data) is str and len(data) > _LONG:
        return (str, len(data), hash(data), data[:_LONG])
    return (type(data), data)
