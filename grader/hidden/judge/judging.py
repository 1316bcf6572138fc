"""Run each family of generated scenarios once per submission and judge every rule on it.

A family runs in batches (SubmissionSession.batch): no tool call waits for a round trip, each
batch is judged by every rule that reads the family as soon as it comes back, and only the
verdicts are kept, so the grader holds one batch at a time. A rule keeps the first scenario it
fails; the corpus lists each family smallest first, so that is the smallest failing scenario
of its kind.

A verdict depends on the scenario and what the worker showed of it alone (contract_rules.py),
so the job keeps each scenario's verdicts by a digest of that observation (Known): in a class,
most students' code shows the same thing on most scenarios, and those are judged once per job.
"""

from dataclasses import dataclass, field

from grader.hidden.judge import levels
from grader.hidden.judge.contract_rules import (
    RULES,
    SKIP,
    Judging,
    Rule,
    Unchanging,
    Verdict,
    rule_named,
)
from grader.hidden.judge.corpus import Entry, families
from grader.hidden.judge.reading import UNANSWERED
from grader.hidden.judge.shrink import shrunk_fault
from grader.hidden.judge.words import program_words, scenario_words
from grader.model import FailedExample, NotJudged
from grader.sandbox.crossing import RaisedFact
from grader.sandbox.observation import Observation
from grader.sandbox.problems import LoadFailure, SandboxForbidden, SandboxProblem
from grader.sandbox.session import SubmissionSession

# Scenarios per batch: a batch has one test's time limit, and one that times out or
# kills the worker sends its batch's scenarios back one by one.
BATCH = 100
GENERATED = "generated"  # with a family's name, the key a test asks a family by
# Text that cannot become UTF-8 is taught with the budget (its size cannot be measured), as the
# hand-written test of that case says (grader/reports/hints.py reads where from its id).
UNENCODABLE_TAUGHT = "vocabulary/test_unencodable_text_over_the_budget_is_invalid_result"
# The rules whose fault can hide every scenario from another rule, in the order they are named
# as the reason: raising (rule 8), calling the handler wrongly (7), changing the inputs (9), no
# envelope to read (2), and refusing every value (invalid_result).
DECIDERS = tuple(
    rule_named(name)
    for name in ("never_raises", "called_once", "inputs_unchanged", "shape", "vocabulary")
)


# Different observations of one scenario the job keeps verdicts for: a class shows a few
# (the right one, and one per kind of bug that reaches it); more are judged each time.
KNOWN_PER_SCENARIO = 8
KNOWN = f"{GENERATED}/known"  # the job's Known, in SubmissionSession.shared


@dataclass
class Tally:
    """One rule over one family: how many scenarios it judged, and the first it failed."""

    judged: int = 0
    fault: FailedExample | None = None
    judging: Judging = field(default_factory=Judging)
    index: int = -1  # the family's index of the scenario that failed


@dataclass
class Known:
    """Every rule's verdicts on each generated scenario, by a digest of its observation.

    One per job, shared by its submissions: a verdict is a function of the scenario and the
    observation, and Observation.digest (of its full JSON text) tells observations apart.
    """

    verdicts: dict[tuple[str, int], dict[bytes, tuple[Verdict, ...]]] = field(default_factory=dict)


@dataclass
class FamilyRun:
    """One family being judged for one submission: its rules, their tallies, the job's Known."""

    name: str
    rules: list[Rule]
    found: dict[str, Tally]
    known: Known

    def verdicts(self, index: int, entry: Entry, observation: Observation) -> tuple[Verdict, ...]:
        """Return every rule's verdict on the family's `index`-th scenario, judged once per job."""
        digest = observation.digest
        seen = self.known.verdicts.setdefault((self.name, index), {})
        verdicts = None if digest is None else seen.get(digest)
        if verdicts is None:
            verdicts = levels.verdicts(self.rules, entry, observation)
            if digest is not None and len(seen) < KNOWN_PER_SCENARIO:
                seen[digest] = verdicts
        return verdicts


def tallies(submission: SubmissionSession, family: str) -> dict[str, Tally]:
    """Return every rule's tally over `family`, run and judged once per submission.

    A SandboxProblem (a timeout, a crash) is kept instead, and raised to every rule reading it.
    """
    key = f"{GENERATED}/{family}"
    kept = submission.memo.get(key)
    if isinstance(kept, SandboxProblem):
        raise kept
    if isinstance(kept, dict):
        return kept
    known = submission.shared.setdefault(KNOWN, Known())
    assert isinstance(known, Known)  # only this module keeps anything under KNOWN
    rules = [rule for rule in RULES if family in rule.families]
    run = FamilyRun(family, rules, {rule.name: Tally() for rule in rules}, known)
    try:
        for start, stop in spans(families()[family]):
            _judge_batch(submission, run, start, stop)
    except SandboxProblem as problem:
        submission.memo[key] = problem
        raise
    submission.memo[key] = run.found
    return run.found


def spans(entries: tuple[Entry, ...]) -> list[tuple[int, int]]:
    """Return where each batch of `entries` starts and stops: at most BATCH, no program split.

    A program's calls run in one worker, one after the other: a batch ends before a program
    that would not fit in it whole (a program is far shorter than a batch).
    """
    found, start = [], 0
    while start < len(entries):
        stop = min(start + BATCH, len(entries))
        while stop < len(entries) and entries[stop].scenario.get("program", 0) > 0:
            stop -= 1
        stop = stop if stop > start else min(start + BATCH, len(entries))
        found.append((start, stop))
        start = stop
    return found


def _judge_batch(submission: SubmissionSession, run: FamilyRun, start: int, stop: int) -> None:
    """Run the batch from `start` to `stop` and judge it; after a timeout or a crash, one by one.

    The scenario that hung or killed the worker then fails rule 8 on its own (invoke_tool gave
    no envelope), and the rest of the batch is judged as usual. Once the submission's time is
    spent, every later run ends at once, and the SandboxProblem is raised.
    """
    batch = families()[run.name][start:stop]
    places = range(start, start + len(batch))
    # The same scenarios for every submission: the job encodes their request once.
    name = f"{GENERATED}/{run.name}/{start}"
    try:
        with submission.batch([entry.scenario for entry in batch], name) as observations:
            for index, observation in zip(places, observations, strict=True):
                _judge_one(run, index, observation)
        return
    except (SandboxForbidden, LoadFailure):
        raise  # the code's doing, whatever the scenario: one by one would say it again
    except SandboxProblem:
        if len(batch) == 1 or submission.out_of_time():
            raise
    for index, entry in zip(places, batch, strict=True):
        try:
            with submission.batch([entry.scenario]) as observations:
                _judge_one(run, index, observations[0])
        except SandboxProblem as problem:
            if submission.out_of_time():
                raise
            _judge_one(run, index, _unanswered(entry, problem))


def _unanswered(entry: Entry, problem: SandboxProblem) -> Observation:
    """Return the observation of a scenario that hung or killed the worker: no envelope at all.

    Every rule that reads the scenario's outcome judges it as invoke_tool failing to return
    (rule 8), and the rules about what it returned have nothing to read.
    """
    raised: RaisedFact = {"type": f"{UNANSWERED}{problem}", "same_object": False}
    return Observation(
        {
            "envelopes": [],
            "raised": raised,
            "tools_changed": False,
            "reused_object": False,
            "same_envelope": False,
            "forbidden": [],
            "calls": dict(entry.expected.calls),  # no call is held against it under rule 7
            "received": {},
            "handler_raised": [],
        },
        digested=True,
    )


def _judge_one(run: FamilyRun, index: int, observation: Observation) -> None:
    """Count the family's `index`-th scenario for every rule that has not failed yet."""
    entry = families()[run.name][index]
    walk = observation.walk()  # rule 3 compares envelopes of the student's
    for rule, verdict in zip(run.rules, run.verdicts(index, entry, observation), strict=True):
        tally = run.found[rule.name]
        if tally.fault is not None or verdict is SKIP:
            continue
        fault = verdict.against(tally.judging, walk) if isinstance(verdict, Unchanging) else verdict
        tally.judged += 1
        if isinstance(fault, str):
            taught = UNENCODABLE_TAUGHT if entry.expected.unencodable else ""
            said = scenario_words(entry.scenario)
            if entry.scenario.get("program"):  # said after the program's earlier calls
                fault = program_words(earlier_calls(run.name, index), fault)
            tally.fault, tally.index = FailedExample(fault, said, taught), index


def _smallest(
    submission: SubmissionSession, rule: Rule, family: str, index: int, fault: FailedExample
) -> FailedExample:
    """Return `fault`, or, for a later call of a program, said of its smallest failing program.

    Replaying costs only a failing submission (shrink.py); the failing call itself is kept.
    """
    entries = families()[family]
    if not 0 <= index < len(entries) or not entries[index].scenario.get("program"):
        return fault
    calls = [*earlier_calls(family, index), entries[index]]
    shrunk = shrunk_fault(submission, rule, calls)
    if shrunk is None:
        return fault
    said = scenario_words(entries[index].scenario)
    taught = UNENCODABLE_TAUGHT if entries[index].expected.unencodable else ""
    return FailedExample(shrunk, said, taught)


def earlier_calls(family: str, index: int) -> list[Entry]:
    """Return the calls of the program that the family's `index`-th call ends, before it."""
    entries = families()[family]
    first = index - int(entries[index].scenario.get("program", 0))
    return list(entries[first:index])


def judge(submission: SubmissionSession, rule: Rule) -> None:
    """Fail with the first scenario of the rule's families that breaks it, in student words.

    A family that could not run (it timed out or crashed the worker) is left to rule 8, whose
    test fails with that problem; another rule fails with it only if nothing else was judged.
    A rule that no scenario could be judged on steps aside for the rule whose fault hid every
    one (invoke_tool raised, say), and fails when none did: no points without work.
    """
    judged, problem, read = 0, None, []
    # Asked before any is read: a test of another rule may step aside for this one on each.
    submission.asked.update((GENERATED, family) for family in rule.families)
    for family in rule.families:
        try:
            found = tallies(submission, family)
        except SandboxProblem as error:
            problem = problem or error
            continue
        fault = found[rule.name].fault
        if fault is not None:
            raise _smallest(submission, rule, family, found[rule.name].index, fault)
        judged += found[rule.name].judged
        read.append((family, found))
    if problem is not None and (judged == 0 or rule.name == "never_raises"):
        raise problem
    if judged == 0:
        for family, found in read:
            for decider in DECIDERS:
                if decider.name != rule.name and found.get(decider.name, Tally()).fault:
                    reason = f"every scenario was decided by rule {decider.words}"
                    raise NotJudged(reason, decider.category, (GENERATED, family))
        raise AssertionError("invoke_tool never gave an answer this rule could be judged on")
