"""The smallest program that still fails: a failing program replayed alone, call by call left out.

A program's calls run in the submission's one worker, after every earlier test, so a call can
fail for what any earlier call left behind. Once a rule has found its first failing call, the
program up to that call is replayed in a worker of its own, loaded anew (SubmissionSession.
run_fresh), and each earlier call is left out in turn, first to last, whenever the rest still
fails the rule at its last call. Only a failing submission pays for it, at most one fresh
worker per call of the program. When the whole program does not fail alone (the fault needed
the session's history), the student reads it as it failed, cut after the failing call.
"""

from grader.hidden.judge import levels
from grader.hidden.judge.contract_rules import Rule
from grader.hidden.judge.corpus import Entry
from grader.hidden.judge.words import program_words
from grader.sandbox.handlers import Scenario
from grader.sandbox.problems import SandboxProblem
from grader.sandbox.session import SubmissionSession


def shrunk_fault(submission: SubmissionSession, rule: Rule, calls: list[Entry]) -> str | None:
    """Return the fault of the fewest calls of `calls` that still fail `rule` at the last one.

    `calls` is the program up to its failing call; the failing call is always kept. Return None
    when the program does not fail alone, or its replay hung or crashed the worker.
    """
    try:
        found = _fault(submission, rule, calls)
        if found is None:
            return None
        kept = calls
        for call in calls[:-1]:
            fewer = [entry for entry in kept if entry is not call]
            fault = _fault(submission, rule, fewer)
            if fault is not None:
                kept, found = fewer, fault
    except SandboxProblem:
        return None
    return program_words(kept[:-1], found) if len(kept) > 1 else found


def _fault(submission: SubmissionSession, rule: Rule, calls: list[Entry]) -> str | None:
    """Return the rule's fault at the last of `calls`, run alone as a program, or None."""
    program: list[Scenario] = [
        {**entry.scenario, "program": place} for place, entry in enumerate(calls)
    ]
    observations = submission.run_fresh(program)
    [verdict] = levels.verdicts([rule], calls[-1], observations[-1])
    return verdict if isinstance(verdict, str) else None
