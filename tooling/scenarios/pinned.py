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

from typing import Any

from course.contract import FAILURE_CODES
from grader.hidden.probes import MARKER, ROOMY, TOOL, nests
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
    """A handler that returns an exception, an object whose truth or equality raises, a dataclass
    or a generator, as the value or inside it."""
    values: list[dict[str, object]] = [
        {"make": "placed", "at": [], "item": maker}
        for maker in (*RETURNED_EXCEPTIONS, *TOUCHY_RESULTS)
    ]
    values.append({"make": "placed", "value": tag([1]), "at": [1], "item": "returned_not_found"})
    values.append({"make": "placed", "value": tag([1]), "at": [0], "item": "truthless"})
    # Objects a lenient submission converts (dataclasses.asdict, list()) instead of refusing.
    for item in ("dataclass", "generator"):
        values.append({"make": "placed", "at": [], "item": item})
        values.append(
            {"make": "placed", "value": tag({"rows": [1]}), "at": ["rows", 1], "item": item}
        )
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


# Handlers that call invoke_tool themselves (issue 39). A correct invoke_tool keeps everything in
# locals, so nesting changes nothing for it; these show what module state does instead: the
# outer envelope carrying the inner request's id or measured by the inner call's budget, a
# re-entrancy guard refusing the inner call, a table or fallback left by an earlier call.
VALUE = "x" * 20  # 22 bytes as JSON
COURSE_KINDS = ("invalid_input", "permission_denied", "not_found")


def _inner(request_id: object, spec: ToolSpec, **more: Any) -> Scenario:
    return scenario(request_id, {TOOL: spec}, **more)


def _nesting(outer_id: object, nest: ToolSpec, **more: Any) -> Scenario:
    return scenario(outer_id, {TOOL: nest}, **more)


def nested() -> tuple[Scenario, ...]:
    """Inner calls with other ids and budgets, failing inner calls, two levels, one tool name."""
    fits = returns({"n": 1})
    built = [
        # Ids of other types and values: each envelope carries its own request's.
        _nesting("req-7", nests(_inner(7, fits), value="done")),
        _nesting(7, nests(_inner("7", fits), then="return_inner")),
        _nesting(0, nests(_inner("0", fits), value=0)),
        _nesting("", nests(_inner(-1, returns("")), then="return_inner")),
        # The outer value fits its own budget, not the inner call's, and the other way round.
        _nesting(
            "req-7", nests(_inner(7, fits, max_result_bytes=5), value=VALUE), max_result_bytes=30
        ),
        _nesting(
            "req-7", nests(_inner(7, fits, max_result_bytes=100), value=VALUE), max_result_bytes=21
        ),
        _nesting("req-7", nests(_inner(7, fits), value=VALUE), max_result_bytes=22),
        _nesting("req-7", nests(_inner(7, fits, max_result_bytes=0), value=VALUE)),
        _nesting(
            "req-7",
            nests(_inner(7, returns(VALUE), max_result_bytes=22), then="return_inner"),
            max_result_bytes=21,
        ),
        _nesting(
            "req-7",
            nests(_inner(7, returns(VALUE), max_result_bytes=21), then="return_inner"),
            max_result_bytes=22,
        ),
        # An inner call that fails: an unknown tool, each course exception, a value outside.
        _nesting("req-7", nests(_inner(7, fits, tool="missing"), then="return_inner")),
        *(
            _nesting("req-7", nests(_inner(7, _raising(kind, False)), value="fallback"))
            for kind in (*COURSE_KINDS, "runtime_error")
        ),
        _nesting("req-7", nests(_inner(7, returns((1, 2))), then="return_inner")),
        # The outer handler raises after a successful inner call, or a BaseException passes.
        *(
            _nesting("req-7", nests(_inner(7, fits), then="raise", exception=kind))
            for kind in (*COURSE_KINDS, "value_error", "keyboard_interrupt")
        ),
        _nesting("req-7", nests(_inner(7, _raising("keyboard_interrupt", False)), value=1)),
        # Two levels, each with its own id and budget.
        _nesting(
            "outer",
            nests(
                _inner(
                    2,
                    nests(_inner("inner", returns(VALUE), max_result_bytes=22), "return_inner"),
                    max_result_bytes=21,
                ),
                then="return_inner",
            ),
            max_result_bytes=30,
        ),
        _nesting(
            1,
            nests(
                _inner("middle", nests(_inner(3, fits), value=[1, 2]), max_result_bytes=8),
                "return_inner",
            ),
        ),
        # The inner table reuses the outer tool's name for another tool, or lacks the one the
        # outer request named: no table of an earlier call may answer.
        _nesting("req-7", nests(_inner(7, returns("inner")), then="return_inner")),
        _nesting(
            "req-7",
            nests(scenario(7, {"other": fits}), then="return_inner"),
        ),
    ]
    return tuple(built)
