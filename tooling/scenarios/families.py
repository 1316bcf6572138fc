"""The families of generated scenarios: for each, a strategy and how many scenarios to draw.

A family varies what its rules are about over their whole input space and keeps the rest
plain. grader/hidden/judge/contract_rules.py says which rules judge which family.
"""

import unicodedata
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from grader.hidden.judge.contract_model import encoded_size as encoded_size_or_none
from grader.hidden.probes import MARKER, ROOMY, TOOL, nests
from grader.sandbox.handlers import THEN, Scenario
from grader.sandbox.inside.kinds import MAKERS, RETURNED_EXCEPTIONS, TOUCHY_RESULTS
from grader.sandbox.inside.picture import tag
from grader.sandbox.inside.protocol import ToolSpec
from grader.sandbox.inside.raising import EXCEPTION_CLASSES, EXCEPTION_KINDS
from tooling.scenarios import pinned, programs, sizes
from tooling.scenarios.strategies import (
    FOLDED,
    encoded_size,
    json_value,
    key,
    nested,
    request_id,
    returns,
    scenario,
    text,
)

# BaseException kinds that are not Exceptions: they must propagate, the very same object.
PROPAGATING = (
    "keyboard_interrupt",
    "system_exit",
    "generator_exit",
    "custom_base",
    "cancelled_error",
)
# The pinned scenarios' kinds are left out of the draws, which would all change with them.
DRAWN_KINDS = EXCEPTION_KINDS - pinned.PINNED_KINDS
RAISED = tuple(sorted(kind for kind in DRAWN_KINDS if kind not in PROPAGATING))
# Kinds made from their own arguments (kinds.make_raised): the zoo's classes and the built-ins.
WITH_ARGUMENTS = tuple(
    sorted(kind for kind in EXCEPTION_CLASSES.keys() & DRAWN_KINDS if kind not in PROPAGATING)
)
# Messages that name a code or invite a retry: the code comes from the class alone.
CLUES = ("", " not found", " permission denied", " invalid_input", " temporarily unavailable")
# What an exception may be made with: nothing (raised bare), its message, an errno, data.
ARGUMENTS: list[list[object]] = [
    [],
    [MARKER],
    [13, MARKER],
    [MARKER, 42],
    [{"detail": MARKER, "rows": [1]}],
]
# Attributes a tool's error may carry that a careless submission reads a code or a retry from.
ATTRIBUTES = {
    "code": st.sampled_from(["permission_denied", "not_found", 403, 404]),
    "errno": st.sampled_from([2, 13, 110]),
    "retry_after": st.sampled_from([0, 1, 0.5]),
    "status": st.sampled_from([404, 503]),
    "detail": st.just(MARKER + "-attribute"),
}
# Objects only the worker can make, put anywhere in a value (kinds.build, "placed").
WHOLE_VALUES = {
    "placed",
    "deep_list",
    "list_cycle",
    "dict_cycle",
    "shared_list",
    "exception",
    "long_text",
}
UNDRAWN = {  # pinned only (pinned.py, sizes.py)
    *("str_subclass_key", "str_subclass_top", "large_arguments", "dataclass", "generator"),
    *RETURNED_EXCEPTIONS,
    *TOUCHY_RESULTS,
}
FOREIGN = tuple(sorted(MAKERS - WHOLE_VALUES - UNDRAWN))
# Values a picture can carry that are outside the vocabulary.
OUTSIDE_LEAVES = st.one_of(
    st.sampled_from([float("nan"), float("inf"), float("-inf"), "\ud800", "a\udc00b"]),
    st.sampled_from(["\ud83d\ude00", "\udfff\ud800", 10**5000]),
    st.builds(tuple, st.lists(st.integers(0, 3), max_size=2)),
    st.builds(frozenset, st.lists(st.integers(0, 3), max_size=2)),
    st.builds(set, st.lists(st.integers(-3, 3), max_size=2)),
)
BAD_KEYS = st.sampled_from([1, 0, None, True, 2.5, (1, 2), "\ud800", -(2**70)])


@dataclass(frozen=True)
class Family:
    """A family: its name, its strategy of scenarios, how many to draw, and its pinned ones."""

    name: str
    strategy: st.SearchStrategy[Scenario]
    count: int
    pinned: tuple[Scenario, ...] = ()


@dataclass(frozen=True)
class ProgramFamily:
    """A family of programs (programs.py): each a few calls into one loaded submission."""

    name: str
    strategy: st.SearchStrategy[programs.Program]
    count: int
    pinned: tuple[programs.Program, ...] = ()


@st.composite
def exception_spec(draw: st.DrawFn, does: str = "raise") -> ToolSpec:
    """A tool raising from the zoo: any kind, args, message with a clue and attributes."""
    kind = draw(st.sampled_from(RAISED))
    spec: ToolSpec = {"does": does, "exception": kind}  # type: ignore[typeddict-item]
    spec["message"] = MARKER + draw(st.sampled_from(CLUES))
    if kind in WITH_ARGUMENTS and draw(st.booleans()):
        arguments = draw(st.sampled_from(ARGUMENTS))
        spec["args"] = [tag(argument) for argument in arguments]
        names = draw(st.lists(st.sampled_from(sorted(ATTRIBUTES)), unique=True, max_size=3))
        spec["attributes"] = {name: tag(draw(ATTRIBUTES[name])) for name in names}
    depth = draw(st.sampled_from([0, 0, 0, 0, 2, 20]))
    if depth:
        spec["depth"] = depth  # raised deep in the tool: the code comes from the class alone
    return spec


@st.composite
def handler(draw: st.DrawFn) -> ToolSpec:
    """A plain tool: it succeeds with a small value, fails with the zoo, or returns a bad value."""
    choice = draw(st.sampled_from(["return", "return", "raise", "outside"]))
    if choice == "return":
        return returns(draw(json_value))
    if choice == "raise":
        return draw(exception_spec())
    return returns([draw(OUTSIDE_LEAVES)])


@st.composite
def ids(draw: st.DrawFn) -> Scenario:
    """An id of any allowed type and form, on any path, in a request with extra keys."""
    tools = {TOOL: draw(handler())}
    name = draw(st.sampled_from([TOOL, TOOL, "missing"]))
    built = scenario(draw(request_id), tools, tool=name)
    extra = draw(st.dictionaries(st.sampled_from(["meta", "ID", "id_", "trace"]), text, max_size=2))
    order = draw(st.permutations([*built["request"], *extra]))
    merged = {**built["request"], **extra}
    built["request"] = {field: merged[field] for field in order}
    built["outcome_only"] = True
    return built


NAMES = ("probe", "Probe", "PROBE", " probe", "probe ", "", " ", "pr\u00f6be", "pro\u0308be")
MORE_NAMES = ("\uff50\uff52\uff4f\uff42\uff45", "probe\u200b", "\ufb01nd", "find", "0", "None")


def variants(name: str) -> list[str]:
    """Return the names a lenient lookup would take for `name`: its other forms."""
    forms = {unicodedata.normalize(form, name) for form in ("NFC", "NFD", "NFKC", "NFKD")}
    forms |= {name.casefold(), name.upper(), name.strip(), f" {name}", name + "\u200b"}
    return sorted(forms - {name}) or [name + " "]


@st.composite
def names(draw: st.DrawFn) -> Scenario:
    """A table whose names differ only in form, and a request for one of them or a near miss."""
    pool = st.sampled_from(NAMES + MORE_NAMES)
    table = draw(st.lists(pool, min_size=1, max_size=4, unique=True))
    tools: dict[str, ToolSpec] = {}
    for place, name in enumerate(table):
        spec = returns({"tool": place}) if draw(st.booleans()) else draw(exception_spec())
        if draw(st.integers(0, 3)) == 0:
            spec = {**spec, "falsy": True}
        tools[name] = spec
    # A name of the table, one of another form (normalised, case-folded, stripped), or any.
    asked = draw(
        st.one_of(
            st.sampled_from(table),
            st.sampled_from(table).map(variants).flatmap(st.sampled_from),
            pool,
        )
    )
    built = scenario(draw(request_id), tools, tool=asked)
    built["outcome_only"] = True
    return built


@st.composite
def exceptions(draw: st.DrawFn) -> Scenario:
    """A handler raising anything from the zoo, or a BaseException that must propagate."""
    propagates = draw(st.integers(0, 5)) == 0
    if propagates:
        spec: ToolSpec = {"does": "raise", "exception": draw(st.sampled_from(PROPAGATING))}
        spec["message"] = MARKER
    else:
        spec = draw(exception_spec())
    # Half the requests are alike, so the envelopes of exceptions that differ only in what
    # they carry can be compared (redaction: the envelope cannot change with the message).
    asked = draw(st.one_of(st.sampled_from(["req-7", 0, "r"]), request_id))
    built = scenario(asked, {TOOL: spec})
    # Rule 9 holds on the way out of a BaseException too: only there is the request read back.
    built["outcome_only"] = not propagates
    return built


@st.composite
def inside(draw: st.DrawFn) -> Scenario:
    """A value inside the vocabulary, of any type, depth and width, under a roomy budget."""
    built = scenario("req-7", {TOOL: returns(draw(nested()))}, max_result_bytes=ROOMY)
    built["outcome_only"] = True
    return built


@st.composite
def outside(draw: st.DrawFn) -> Scenario:
    """A value outside the vocabulary anywhere in a tree: a leaf, a key or a worker's object."""
    tree = draw(st.lists(json_value, min_size=1, max_size=4))
    for _ in range(draw(st.sampled_from([0, 0, 1, 2, 4]))):  # deeper than any first level
        tree = [tree] if draw(st.booleans()) else [draw(json_value), tree]
    path: list[Any] = []
    node: Any = tree
    while draw(st.booleans()):
        containers = [(i, item) for i, item in enumerate(node) if type(item) is list]
        if not containers:
            break
        index, node = draw(st.sampled_from(containers))
        path.append(index)
    spot = draw(st.integers(0, len(node)))
    kind = draw(st.sampled_from(["leaf", "leaf", "key", "foreign"]))
    if draw(st.integers(0, 5)) == 0:  # the bad thing is the value itself
        top: ToolSpec = {"does": "return"}
        if kind == "foreign":
            top["value"] = {"make": "placed", "at": [], "item": draw(st.sampled_from(FOREIGN))}
        else:
            top["value"] = tag(draw(OUTSIDE_LEAVES))
        built = scenario("req-7", {TOOL: top}, max_result_bytes=ROOMY)
        built["outcome_only"] = True
        return built
    if kind == "foreign":
        made = {"make": "placed", "value": tag(tree), "at": [*path, spot]}
        spec: ToolSpec = {
            "does": "return",
            "value": {**made, "item": draw(st.sampled_from(FOREIGN))},
        }
    else:
        bad = draw(OUTSIDE_LEAVES) if kind == "leaf" else {draw(BAD_KEYS): draw(json_value)}
        node.insert(spot, bad)
        spec = returns(tree)
    # A small budget only where json.dumps gives the value a size (a tuple, an int key): for
    # a foreign object or NaN "too large" has no one meaning, and either code could be right.
    sized = kind != "foreign" and encoded_size_or_none(tree) is not None
    budget = draw(st.sampled_from([ROOMY, ROOMY, 4096, 8, 0])) if sized else ROOMY
    built = scenario("req-7", {TOOL: spec}, max_result_bytes=budget)
    built["outcome_only"] = True
    return built


# Past a mebibyte, where a submission might change how it measures (or give up measuring).
HUGE: list[tuple[ToolSpec, int]] = [
    (
        {"does": "return", "value": {"make": "long_text", "text": "\u00e9", "count": 1 << 19}},
        2**20 + 2,
    ),
    (
        {
            "does": "return",
            "value": {"make": "long_text", "text": "a", "count": 1 << 20, "in_list": True},
        },
        2**20 + 4,
    ),
]
budget_text = st.text(alphabet=st.sampled_from(FOLDED + '\x7f\x80\x00"\\\U0001f600a-'), max_size=8)
budget_value = st.recursive(
    st.one_of(budget_text, st.integers(-(10**20), 10**20), st.floats(-1e6, 1e6), st.none()),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.one_of(budget_text, key), children, max_size=3),
    ),
    max_leaves=8,
)


@st.composite
def budgets(draw: st.DrawFn) -> Scenario:
    """A value with escapes, multibyte text and signs, under a budget around its size."""
    if draw(st.integers(0, 40)) == 0:  # over the budget: the value itself is never compared
        spec, size = draw(st.sampled_from(HUGE))
        built = scenario(
            "req-7", {TOOL: spec}, max_result_bytes=draw(st.sampled_from([size - 1, 0]))
        )
        built["outcome_only"] = True
        return built
    else:
        value = draw(budget_value)
        spec, size = returns(value), encoded_size(value)
    budget = draw(st.sampled_from([size, size, size - 1, size - 1, size + 1, 0, size * 2]))
    built = scenario("req-7", {TOOL: spec}, max_result_bytes=max(budget, 0))
    built["outcome_only"] = True
    return built


@st.composite
def ownership(draw: st.DrawFn) -> Scenario:
    """A handler that changes its arguments, or hands out its own object or the arguments."""
    arguments = draw(st.dictionaries(key, json_value, min_size=1, max_size=3))
    value = draw(json_value)
    does = draw(st.sampled_from(["mutate", "return_fixture", "return_arguments", "return"]))
    spec: ToolSpec = {"does": does}  # type: ignore[typeddict-item]
    if does == "return_fixture":
        spec["fixture"] = tag(draw(st.lists(json_value, min_size=1, max_size=3)))
    elif does != "return_arguments":
        spec["value"] = tag(value)
    built = scenario("req-7", {TOOL: spec}, arguments=arguments, max_result_bytes=ROOMY)
    built["repeat"] = draw(st.sampled_from([1, 1, 2]))
    built["received"] = True
    return built


@st.composite
def retries(draw: st.DrawFn) -> Scenario:
    """A handler that fails (once, or every time) with anything a retry loop might look at."""
    spec = draw(exception_spec(does=draw(st.sampled_from(["flaky", "raise"]))))
    if spec["does"] == "flaky":
        spec["value"] = tag(draw(json_value))
    # One call each: a second call of invoke_tool would judge what a retry left behind.
    built = scenario(draw(request_id), {TOOL: spec}, max_result_bytes=ROOMY)
    built["outcome_only"] = True
    return built


BUDGETS = (None, None, 0, 8, 32, ROOMY)  # None: the call is given no budget, so 4096


def _budget(budget: int | None) -> dict[str, int]:
    return {} if budget is None else {"max_result_bytes": budget}


@st.composite
def nesting(draw: st.DrawFn) -> Scenario:
    """A handler that calls invoke_tool itself with another id, budget and handler.

    Then it returns its own value or the inner envelope's, or raises.
    """
    name = draw(st.sampled_from([TOOL, TOOL, "missing"]))
    budget = _budget(draw(st.sampled_from(BUDGETS)))
    inner = scenario(draw(request_id), {TOOL: draw(handler())}, tool=name, **budget)
    then = draw(st.sampled_from(THEN))
    if then == "raise":
        spec = nests(inner, "raise", exception=draw(exception_spec())["exception"])
    else:
        spec = nests(inner, then, value=draw(json_value))
    budget = _budget(draw(st.sampled_from(BUDGETS)))
    built = scenario(draw(request_id), {TOOL: spec}, **budget)
    built["outcome_only"] = True  # the pinned ones (pinned.nested) observe everything
    return built


FAMILIES: tuple[Family | ProgramFamily, ...] = (
    Family("ids", ids(), 500),
    Family("names", names(), 300),
    Family("exceptions", exceptions(), 500, pinned.exceptions()),
    Family("inside", inside(), 450, pinned.inside()),
    Family("outside", outside(), 600, pinned.outside()),
    Family("budgets", budgets(), 500, sizes.budgets()),
    Family("ownership", ownership(), 150, (*pinned.ownership(), *sizes.ownership())),
    Family("retries", retries(), 200),
    Family("nested", nesting(), 120, pinned.nested()),
    ProgramFamily("programs", programs.program(), 60, (*programs.pinned(), *sizes.programs())),
)
