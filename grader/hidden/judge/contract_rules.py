"""Each rule of the contract, judged on its own over generated scenarios.

A rule reads only what it is about, so a bug costs the categories of the rules it breaks and
no other. invoke_tool raising for a tuple breaks rule 8 (error_codes) and the invalid_result
code (vocabulary), and loses in both; an id stripped of its spaces breaks rule 1 alone.

A check returns None when the scenario keeps the rule, a fault in a student's words when it
breaks it, or SKIP when the scenario says nothing about the rule. A scenario is skipped only
where another rule, judging that very scenario, has found the fault that hides this one:
- calls after the first of a scenario in which invoke_tool visibly broke rule 9 (changed the
  tools or the request, or handed back an envelope twice): later calls ran on other inputs;
- the outcome rules, where the handler was not called as rule 7 says (another handler ran,
  or a retry changed the outcome);
- an envelope without the field a rule reads (rule 2's);
- a value refused as invalid_result, for the budget (the vocabulary's).
A scenario whose handler calls invoke_tool itself is judged call by call (levels.py says how),
and each call of a program (several calls into one loaded submission) as a scenario of its own.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from course.contract import (
    ENVELOPE_KEYS,
    EXCEPTION_CODES_PART,
    FAILURE_CODES,
    INVALID_RESULT,
    RESULT_TOO_LARGE,
    UNKNOWN_TOOL,
)
from grader.hidden.cases import Case
from grader.hidden.judge.contract_model import PROPAGATES, SUCCESS
from grader.hidden.judge.corpus import Entry, families
from grader.hidden.judge.reading import (
    calls_judged,
    calls_right,
    invocations,
    outcome,
    raised_words,
    request_changed,
    said,
    settled,
)
from grader.hidden.probes import MARKER
from grader.sandbox.crossing import untag
from grader.sandbox.observation import Observation
from grader.sandbox.values import Walk, same_json, shown, strings_in

# The codes a handler's exception or a missing tool gets: a returned value never gets one.
EXCEPTION_OUTCOMES = frozenset(FAILURE_CODES) - {INVALID_RESULT, RESULT_TOO_LARGE}


class Skip:
    """What a check returns for a scenario that says nothing about its rule."""


SKIP: Final = Skip()


@dataclass
class Judging:
    """What a rule remembers across one family's scenarios (redaction compares envelopes)."""

    seen: dict[object, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Unchanging:
    """Kept if each failure's envelope equals the first one seen for its request (rule 3).

    A check sees one scenario; this is what it leaves to compare across the family, in the
    order of the calls: (key, the envelope without ok and error), or a fault found first.
    """

    parts: tuple[tuple[object, object] | str, ...]

    def against(self, judging: Judging, walk: Walk) -> str | None:
        """Return the first fault, comparing each part with what `judging` saw first.

        Both are the student's: they are compared within `walk`, the observation's.
        """
        for part in self.parts:
            if isinstance(part, str):
                return part
            key, extras = part
            if not same_json(judging.seen.setdefault(key, extras), extras, walk):
                return (
                    "two exceptions of one class gave different envelopes: the code and "
                    "the envelope must follow from the class alone"
                )
        return None


# A fault in a student's words, SKIP, None when kept, or what rule 3 compares across scenarios.
# A check reads only its scenario and observation, so its verdict can be kept and reused.
Verdict = str | Skip | Unchanging | None
Check = Callable[[Entry, Observation], Verdict]


@dataclass(frozen=True)
class Rule:
    """A rule of the contract: its category, the families it is judged on, and its check."""

    name: str
    category: str
    words: str  # names the rule for a student: "1 (the request's id)"
    families: tuple[str, ...]
    check: Check
    part: str  # the rule or code of its category it judges (course.contract.parts_of)


def correlation(entry: Entry, observation: Observation) -> Verdict:
    """Rule 1: every envelope carries the request's id, same type, same value."""
    wanted = entry.scenario["request"]["id"]
    pairs = [(allowed, e) for allowed, e in calls_judged(entry, observation) if e is not None]
    for _allowed, envelope in pairs:
        got = envelope.get("id", "no id at all") if type(envelope) is dict else "no envelope"
        if not same_json(got, wanted):
            return f"the envelope's id was {shown(got)}, not the request's id {shown(wanted)}"
    return None if pairs else SKIP


def shape(entry: Entry, observation: Observation) -> Verdict:
    """Rule 2: four keys, ok a real bool, a success without error, a failure without value."""
    pairs = [(allowed, e) for allowed, e in calls_judged(entry, observation) if e is not None]
    for _allowed, envelope in pairs:
        if type(envelope) is not dict or set(envelope) != set(ENVELOPE_KEYS):
            keys = sorted(map(str, envelope)) if type(envelope) is dict else []
            return f"the envelope had the keys {keys}, not exactly {list(ENVELOPE_KEYS)}"
        ok, error = envelope["ok"], envelope["error"]
        if type(ok) is not bool or ok is not (error is None):
            return f"ok was {shown(ok)} with error {shown(error)}"
        if not ok and (envelope["value"] is not None or error not in FAILURE_CODES):
            return f"a failure carried value {shown(envelope['value'])} and error {shown(error)}"
    return None if pairs else SKIP


def inputs_unchanged(entry: Entry, observation: Observation) -> Verdict:
    """Rule 9: request and tools unchanged, and every envelope a new dict."""
    raised = observation.raised
    # The handler's very BaseException on its way out: the handler ran, and invoke_tool with it.
    passed_through = (PROPAGATES,) in entry.expected.outcomes and bool(
        raised and raised["same_object"]
    )
    if not observation.envelopes and not passed_through:
        return SKIP  # invoke_tool did nothing it could be judged on: rule 8's to judge
    if observation["tools_changed"]:
        return "invoke_tool changed the tools dict"
    if observation["reused_object"] or observation["same_envelope"]:
        return "invoke_tool returned an object it was given, or the same envelope twice"
    if request_changed(observation):
        return "invoke_tool changed the request"
    return None


def codes(entry: Entry, observation: Observation) -> Verdict:
    """The failure codes: each exception's from its class alone, unknown_tool, and no other."""
    judged = False
    for allowed, envelope in calls_judged(entry, observation):
        got = said(envelope, observation)
        if got == UNKNOWN_TOOL and allowed != (UNKNOWN_TOOL,):
            return "the call gave unknown_tool, though the tool is in the table"
        if allowed != (UNKNOWN_TOOL,) and not calls_right(entry, observation):
            continue
        if set(allowed) <= EXCEPTION_OUTCOMES:
            judged = True
            if got not in allowed:
                return f"the call gave {got}, not {' or '.join(allowed)}"
        elif allowed in ((SUCCESS,), (RESULT_TOO_LARGE,)) and envelope is not None:
            # A value inside the vocabulary; one outside it is the vocabulary's to judge.
            judged = True
            if got in EXCEPTION_OUTCOMES:
                return f"the call gave {got}, though the handler returned"
    return None if judged else SKIP


def never_raises(entry: Entry, observation: Observation) -> Verdict:
    """Rule 8: an envelope for whatever a handler does; a BaseException passes unchanged."""
    raised = observation.raised
    if (PROPAGATES,) in entry.expected.outcomes:
        if raised is None and not calls_right(entry, observation):
            return SKIP  # the handler did not run as rule 7 says, so raised nothing to pass on
        if raised is None:
            return "the handler's BaseException did not leave invoke_tool"
        if not raised["same_object"] or raised.get("changed"):
            return f"invoke_tool raised {raised['type']}, not the handler's very exception"
        return None
    if raised is not None:
        if len(observation.envelopes) >= settled(entry, observation):
            return SKIP  # a later call, on inputs an earlier one changed: rule 9's fault
        return f"{raised_words(raised['type'])} instead of returning an envelope"
    return None


def redaction(entry: Entry, observation: Observation) -> Verdict:
    """Rule 3: nothing of an exception in an envelope: its text, its type, what it varies.

    Judged however often the handlers ran: a retried exception must not leak either. Twins (the
    same class for the same request, different in anything else) must give the very same
    envelope, code included, and an exception whose text fails must still get its code.
    """
    raised = observation["handler_raised"]
    if not raised:
        return SKIP
    if observation.data.get("holds_exception"):
        return "the envelope object kept the exception in an attribute"
    names = [name for name in raised if len(name) > 3]
    parts: list[tuple[object, object] | str] = []
    walk = observation.walk()
    for allowed, envelope in calls_judged(entry, observation):
        if not set(allowed) <= EXCEPTION_OUTCOMES:
            continue  # this call's handler returned, or raised a BaseException
        if envelope is None and _text_fails(entry):
            parts.append(f"{said(None, observation)} for an exception whose str() fails")
            break
        if type(envelope) is not dict:
            continue
        shown_text = next(
            (t for t in strings_in(envelope, walk) if MARKER in t or any(n in t for n in names)),
            None,
        )
        if shown_text is not None:
            parts.append(f"the envelope showed {shown(shown_text)}, taken from the exception")
            break
        # For one request, twins get the same envelope whatever else the exception carries.
        # Allowed outcomes keep apart classes that only share a name (a lookalike's). Not
        # after a retry, whose outcome is rule 7's alone (CONTRACT.md's attribution rule).
        if calls_right(entry, observation):
            key = (repr(entry.scenario["request"]), tuple(raised), allowed)
            parts.append((key, envelope))
    return Unchanging(tuple(parts)) if parts else SKIP


# Kinds of exception whose own str() and repr() raise (grader/sandbox/inside/raising.py).
TEXT_FAILS = frozenset(
    ("unprintable", "unprintable_course", "broken_text_fault", "broken_text_permission_denied")
)


def _text_fails(entry: Entry) -> bool:
    """Say whether the scenario's tool raises an exception whose str() and repr() raise."""
    tool = entry.scenario["tools"].get(entry.scenario["request"]["tool"])
    return tool is not None and tool.get("exception") in TEXT_FAILS


def vocabulary(entry: Entry, observation: Observation) -> Verdict:
    """invalid_result for a value outside the vocabulary or not encodable, and only for it."""
    if not calls_right(entry, observation):
        return SKIP
    judged = False
    for allowed, envelope in calls_judged(entry, observation):
        got = said(envelope, observation)
        if INVALID_RESULT in allowed:
            judged = True
            if got not in (INVALID_RESULT, RESULT_TOO_LARGE):  # the budget judges the second
                return f"the call gave {got}, not invalid_result"
        elif allowed in ((SUCCESS,), (RESULT_TOO_LARGE,)) and envelope is not None:
            judged = True
            if got == INVALID_RESULT:
                return "the call gave invalid_result for a value inside the vocabulary"
    return None if judged else SKIP


def budget(entry: Entry, observation: Observation) -> Verdict:
    """Rule 4: result_too_large exactly when the value's UTF-8 JSON passes the budget."""
    if not calls_right(entry, observation):
        return SKIP
    size, judged = entry.expected.size, False
    for allowed, envelope in calls_judged(entry, observation):
        got = said(envelope, observation)
        if INVALID_RESULT in allowed and size is None:
            continue  # a value with no size at all: only the vocabulary says what it gets
        if got == INVALID_RESULT and INVALID_RESULT not in allowed:
            continue  # a value refused at any size: the vocabulary's fault
        if allowed == (RESULT_TOO_LARGE,):
            judged = True
            if got != RESULT_TOO_LARGE:
                return f"the call gave {got} for a value of {size} bytes, over the budget"
        elif got == RESULT_TOO_LARGE:  # said of a value that fits, or of one outside
            judged = True
            if RESULT_TOO_LARGE not in allowed:
                return "the call gave result_too_large for a value that fits the budget"
        elif allowed == (SUCCESS,) and got == SUCCESS:
            judged = True  # a value that fits went through
    return None if judged else SKIP


def fresh_value(entry: Entry, observation: Observation) -> Verdict:
    """Rule 6: a success's value equals json.loads(encoded), same types, sharing nothing."""
    if not calls_right(entry, observation):
        return SKIP
    judged = False
    for allowed, envelope in calls_judged(entry, observation):
        if allowed != (SUCCESS,) or outcome(envelope) != SUCCESS or "value" not in envelope:
            continue
        judged = True
        if not same_json(envelope["value"], entry.value):
            return f"the value was {shown(envelope['value'])}, not {shown(entry.value)}"
    reused = observation["reused_object"] or observation["same_envelope"]  # rule 9's
    shared = observation.data.get("value_shared") or observation.data.get("value_reused")
    if judged and shared and not reused:
        return "the value shared a list or dict with the handler's own objects"
    return None if judged else SKIP


def arguments_copied(entry: Entry, observation: Observation) -> Verdict:
    """Rule 5: the handler gets a deep copy of the arguments, equal to them."""
    if observation.data.get("arguments_shared"):
        return "the handler was given the request's own lists or dicts"
    if request_changed(observation):
        return SKIP  # invoke_tool changed the arguments itself: rule 9's fault
    wanted = entry.scenario["request"]["arguments"]
    received = observation["received"].get(entry.scenario["request"]["tool"], [])
    for picture in received[: settled(entry, observation)]:
        if not same_json(untag(picture), wanted):
            return f"the handler was given {shown(untag(picture))}, not the arguments"
    return None if received else SKIP


def called_once(entry: Entry, observation: Observation) -> Verdict:
    """Rule 7: each call of invoke_tool calls its handler once, and none for an unknown tool."""
    if settled(entry, observation) < len(entry.expected.outcomes):
        return SKIP  # later calls ran on a changed table or request: rule 9's fault
    if observation.data.get("stale_calls"):
        return "a tool of an earlier call's table was called: a call runs only its own tools"
    if calls_right(entry, observation):
        return None
    calls = observation["calls"]
    runs = invocations(observation)
    for name, wanted in entry.expected.calls.items():
        expected = wanted // len(entry.expected.outcomes) * runs
        if calls.get(name, 0) != expected:
            return f"the tool {shown(name)} was called {calls.get(name, 0)} times, not {expected}"
    return None


EVERY_FAMILY = (
    "ids",
    "names",
    "exceptions",
    "inside",
    "outside",
    "budgets",
    "ownership",
    "retries",
    "nested",
    "programs",
)
FAILING = ("ids", "names", "exceptions", "retries", "nested", "programs")
VALUES = ("budgets", "inside", "outside", "ids", "nested", "programs")
RULES = (
    Rule("correlation", "envelope", "1 (the request's id)", EVERY_FAMILY, correlation, "rule 1"),
    Rule("shape", "envelope", "2 (the envelope's shape)", EVERY_FAMILY, shape, "rule 2"),
    Rule(
        "inputs_unchanged",
        "envelope",
        "9 (no side effects)",
        EVERY_FAMILY,
        inputs_unchanged,
        "rule 9",
    ),
    Rule("codes", "error_codes", "of the failure codes", EVERY_FAMILY, codes, EXCEPTION_CODES_PART),
    Rule(
        "never_raises",
        "error_codes",
        "8 (never an exception)",
        EVERY_FAMILY,
        never_raises,
        "rule 8",
    ),
    Rule("redaction", "redaction", "3 (nothing of an exception)", FAILING, redaction, "rule 3"),
    Rule("vocabulary", "vocabulary", "of invalid_result", EVERY_FAMILY, vocabulary, INVALID_RESULT),
    Rule("budget", "unicode_boundary", "4 (the byte budget)", VALUES, budget, "rule 4"),
    Rule(
        "fresh_value", "ownership", "6 (a fresh, equal value)", EVERY_FAMILY, fresh_value, "rule 6"
    ),
    Rule(
        "arguments_copied",
        "ownership",
        "5 (arguments copied)",
        ("ownership", "programs"),
        arguments_copied,
        "rule 5",
    ),
    Rule(
        "called_once",
        "no_retry",
        "7 (one call, none if unknown)",
        EVERY_FAMILY,
        called_once,
        "rule 7",
    ),
)


def rules_of(category: str) -> list[Case]:
    """Return the cases of a category's generated test: one per rule it judges."""
    count = sum(len(entries) for entries in families().values())
    return [
        Case(rule.name, f"for rule {rule.words}, over {count} generated scenarios", rule, rule.part)
        for rule in RULES
        if rule.category == category
    ]


def rule_named(name: str) -> Rule:
    """Return the rule called `name`."""
    return next(rule for rule in RULES if rule.name == name)
