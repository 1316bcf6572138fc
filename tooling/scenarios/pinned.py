"""Scenarios written out one by one: kinds of exception and result a draw would meet by chance.

Each is one input that a submission written from habit treats otherwise than the contract: an
exception whose truth value is False, whose unknown attributes raise RuntimeError or whose
instances cannot be hashed; exception groups, a KeyboardInterrupt inside a BaseExceptionGroup,
a course error carried in a chain or in another exception's args; a handler that returns an
exception, a failure code's text, an envelope-shaped dict, or its arguments. One scenario per
kind (an exception class gets a twin with other args and attributes, for rule 3), so the corpus
grows by tens, not hundreds. Their kinds and makers stay out of the draws (families.py), which
would otherwise all change.
"""

from course.contract import FAILURE_CODES
from grader.hidden.probes import MARKER, ROOMY, TOOL
from grader.sandbox.handlers import Scenario
from grader.sandbox.inside.kinds import RETURNED_EXCEPTIONS, TOUCHY_RESULTS
from grader.sandbox.inside.picture import tag
from grader.sandbox.inside.protocol import ToolSpec
from tooling.scenarios.strategies import returns, scenario

# Classes of raising.EXCEPTION_CLASSES: made from a message, or from args with attributes.
CLASS_KINDS = (
    "falsy_invalid_input",
    "falsy_fault",
    "empty_not_found",
    "touchy_fault",
    "touchy_permission_denied",
    "hashless_invalid_input",
    "hashless_fault",
)
# Kinds raising.make_exception builds from a message alone.
BUILT_KINDS = (
    "group_of_codes",
    "interrupt_group",
    "interrupt_and_course_group",
    "course_in_args",
    "deep_cause_chain",
)
PINNED_KINDS = frozenset((*CLASS_KINDS, *BUILT_KINDS))
# Text that spells a code, or a whole envelope, as a handler's ordinary value.
ENVELOPE_SHAPED: list[object] = [
    {"id": 9, "ok": False, "value": None, "error": "not_found"},
    {"id": "req-7", "ok": False, "value": None, "error": "tool_failed"},
    {"id": "req-7", "ok": True, "value": [1], "error": None},
    {"error": "permission_denied"},
    ["invalid_input"],
]
ARGUMENTS: list[dict[str, object]] = [
    {"q": [1, {"r": "s"}]},
    {"id": "req-7", "ok": False, "value": None, "error": "not_found"},
]


def _outcome_only(built: Scenario) -> Scenario:
    built["outcome_only"] = True
    return built


def _raising(kind: str, twin: bool) -> ToolSpec:
    spec: ToolSpec = {"does": "raise", "exception": kind, "message": MARKER}
    if twin:  # the same class carrying other things: the envelope must not change (rule 3)
        spec["args"] = [tag(MARKER + " twin"), tag(13)]
        spec["attributes"] = {"code": tag("not_found"), "errno": tag(2)}
    return spec


def exceptions() -> tuple[Scenario, ...]:
    """One scenario per new exception kind, and a twin for each class."""
    specs = [_raising(kind, twin) for kind in CLASS_KINDS for twin in (False, True)]
    specs += [_raising(kind, False) for kind in BUILT_KINDS]
    return tuple(_outcome_only(scenario("req-7", {TOOL: spec})) for spec in specs)


def inside() -> tuple[Scenario, ...]:
    """Values inside the vocabulary that look like failures: each code's text, envelopes."""
    values = [*FAILURE_CODES, *ENVELOPE_SHAPED]
    return tuple(
        _outcome_only(scenario("req-7", {TOOL: returns(value)}, max_result_bytes=ROOMY))
        for value in values
    )


def outside() -> tuple[Scenario, ...]:
    """A handler that returns an exception, or an object whose truth or equality raises."""
    values: list[dict[str, object]] = [
        {"make": "placed", "at": [], "item": maker}
        for maker in (*RETURNED_EXCEPTIONS, *TOUCHY_RESULTS)
    ]
    values.append({"make": "placed", "value": tag([1]), "at": [1], "item": "returned_not_found"})
    values.append({"make": "placed", "value": tag([1]), "at": [0], "item": "truthless"})
    return tuple(
        _outcome_only(
            scenario("req-7", {TOOL: {"does": "return", "value": value}}, max_result_bytes=ROOMY)
        )
        for value in values
    )


def ownership() -> tuple[Scenario, ...]:
    """A handler that returns its very arguments, or a copy of them, once or twice."""
    built = []
    gives_back: ToolSpec = {"does": "return_arguments"}
    for arguments in ARGUMENTS:
        for spec in (gives_back, returns(arguments)):
            one = scenario("req-7", {TOOL: spec}, arguments=arguments, max_result_bytes=ROOMY)
            one["repeat"] = 2  # the second call must not see what the first one handed out
            one["received"] = True
            built.append(one)
    return tuple(built)
