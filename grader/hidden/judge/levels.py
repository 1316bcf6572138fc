"""The calls of invoke_tool in a scenario whose tools call it too, each judged on its own.

A tool that calls invoke_tool itself (a "nest" recipe) makes an inner call with its own
request, tools and budget, and the worker reports what that call gave (protocol.NestedFact).
Each rule judges an inner call exactly as it judges the outer one, from an Entry and an
Observation of its own, a level: its envelope or what it raised, and its own tools' calls.
The outer call's verdict comes first; an inner call's fault is said with where it was made.

What the attribution rule (docs/CONTRACT.md) asks of nesting:
- The outer call's outcome is what its handler made of the inner call. Where an inner call
  broke a rule the handler depends on (it raised, or gave another value than the one the handler
  passes on), the rules about the outer outcome step aside, and the inner call's own verdict
  finds that fault: a re-entrancy guard that refuses the inner call breaks rule 8 there, and
  the outer call answering tool_failed for its handler is then right, not another fault.
- The rules about the envelope itself (its id, its shape), about what the envelope leaks, and
  the outer handler's count still judge every level.
- An inner call that raised an exception of its own, not its handler's, is rule 8's fault alone:
  it refused before it could call anything, so rule 7 does not count its handler.
- Rules 5 and 9 are observed for the outer call alone (the worker keeps no inner request's
  picture); a nested call returning the outer call's very envelope is rule 9's same_envelope.
"""

from dataclasses import dataclass

from grader.hidden.judge.contract_model import PROPAGATES, SUCCESS, Expected
from grader.hidden.judge.contract_rules import SKIP, Rule, Unchanging, Verdict
from grader.hidden.judge.corpus import Entry
from grader.hidden.judge.reading import envelopes, outcome
from grader.sandbox.crossing import NESTED, NestedFact, ObservationData, inner_key, untag
from grader.sandbox.handlers import Scenario, inner_scenario
from grader.sandbox.observation import Observation
from grader.sandbox.values import same_json, shown

# The rules that read a call's outcome: they step aside where an inner call broke a rule first.
READS_OUTCOME = frozenset(("codes", "never_raises", "vocabulary", "budget", "fresh_value"))
OUTER_ONLY = frozenset(("inputs_unchanged", "arguments_copied"))  # no inner facts to read


@dataclass(frozen=True)
class Level:
    """One call of invoke_tool: the outer one (at ""), or one a nest tool made (at its key)."""

    entry: Entry
    observation: Observation
    at: str
    faithful: bool  # every inner call made right under it gave what its handler passes on

    def judges(self, rule: str) -> bool:
        """Say whether the rule named `rule` is judged on this call."""
        if self.at and rule in OUTER_ONLY:
            return False
        if self.at and rule == "called_once" and _refused(self.observation):
            return False
        return self.faithful or rule not in READS_OUTCOME

    def words(self, fault: str) -> str:
        """Say a fault found on this call, with where the call was made."""
        return fault if not self.at else f"in {call_words(self.at)}: {fault}"


def verdicts(rules: list[Rule], entry: Entry, observation: Observation) -> tuple[Verdict, ...]:
    """Return each rule's verdict on a scenario: on the outer call, and on every nested one."""
    if not entry.expected.inner:  # nearly every scenario: one call, judged as it is
        return tuple(rule.check(entry, observation) for rule in rules)
    found = levels(entry, observation)
    requests = repr(_requests(entry.scenario))
    return tuple(_verdict(rule, found, requests) for rule in rules)


def _verdict(rule: Rule, found: list[Level], requests: str) -> Verdict:
    """Return the first fault of `rule` over the levels, what rule 3 compares, None, or SKIP.

    Rule 3 compares the failures of one request across scenarios; here every request of the
    scenario is part of what is compared by, since an envelope carrying another call's id
    differs with that call's request (rule 1's fault), not with what an exception carried.
    """
    judged, parts = False, []
    for level in found:
        verdict = rule.check(level.entry, level.observation) if level.judges(rule.name) else SKIP
        if isinstance(verdict, str):
            return level.words(verdict)
        if isinstance(verdict, Unchanging):
            parts += [
                level.words(part) if isinstance(part, str) else ((part[0], requests), part[1])
                for part in verdict.parts
            ]
        judged = judged or verdict is not SKIP
    if parts:
        return Unchanging(tuple(parts))
    return None if judged else SKIP


def levels(entry: Entry, observation: Observation) -> list[Level]:
    """Return the outer call's level, then every inner call's that ran, outermost first."""
    reports: dict[str, list[NestedFact]] = {}
    for report in observation.data.get("nested", []):
        reports.setdefault(report["at"], []).append(report)
    return _levels(entry, observation, "", observation, reports)


def _levels(
    entry: Entry,
    observation: Observation,
    at: str,
    outer: Observation,
    reports: dict[str, list[NestedFact]],
) -> list[Level]:
    """Return the level of the call at `at`, then those of the calls made inside it.

    `outer` is the scenario's own observation, which holds every tool's calls by key.
    """
    below: list[Level] = []
    faithful = True
    for name, expected in entry.expected.inner.items():
        key = inner_key(at, name) if at else name
        if key not in reports:
            continue  # the tool never ran: rule 7 judges its handler's count
        spec = entry.scenario["tools"][name]
        inner = Entry(inner_scenario(spec), expected, untag(expected.value))
        inner_observation = _observation(inner, key, reports[key][0], outer)
        faithful = faithful and _passed_on(expected, spec.get("then"), inner_observation)
        below += _levels(inner, inner_observation, key, outer, reports)
    return [Level(entry, observation, at, faithful), *below]


def _requests(scenario: Scenario) -> list[object]:
    """Return every request of a scenario: its own, then those its nest tools make, in order."""
    found: list[object] = [scenario["request"]]
    for spec in scenario["tools"].values():
        if spec["does"] == "nest":
            found += _requests(inner_scenario(spec))
    return found


def _observation(entry: Entry, at: str, report: NestedFact, outer: Observation) -> Observation:
    """Return what the worker showed of the inner call at `at` as an observation of its own."""
    calls = outer["calls"]
    data: ObservationData = {
        "envelopes": [report["envelope"]] if "envelope" in report else [],
        "raised": report.get("raised"),
        "tools_changed": False,
        "reused_object": False,
        "same_envelope": False,
        "forbidden": [],
        "calls": {name: calls.get(inner_key(at, name), 0) for name in entry.scenario["tools"]},
        "received": {},
        "handler_raised": outer["handler_raised"],
    }
    return Observation(data, allowance=outer.allowance)


def _passed_on(expected: Expected, then: object, observation: Observation) -> bool:
    """Say whether an inner call gave its handler what the model has it pass on.

    A BaseException must leave it as the very object; otherwise it must return, and a handler
    that returns the envelope's value must find the expected one there (None after a failure).
    """
    raised = observation.raised
    if expected.outcomes[0] == (PROPAGATES,):
        return raised is not None and raised["same_object"]
    if raised is not None:
        return False
    if then != "return_inner":
        return True
    [envelope] = envelopes(observation)
    if type(envelope) is not dict or "value" not in envelope:
        return False
    if expected.outcomes[0] == (SUCCESS,):
        return outcome(envelope) == SUCCESS and same_json(envelope["value"], untag(expected.value))
    return envelope["value"] is None


def _refused(observation: Observation) -> bool:
    """Say whether a call raised an exception of its own, not one its handler raised."""
    raised = observation.raised
    return raised is not None and not raised["same_object"]


def call_words(at: str) -> str:
    """Say which call of invoke_tool a nest tool's key stands for, in a student's words."""
    *outer, name = at.split(NESTED)
    said = f"the call of invoke_tool that the tool {shown(name)} made"
    return f"{said} inside {call_words(NESTED.join(outer))}" if outer else said
