"""A job judges each generated observation once: the same verdicts, whoever showed it first."""

from pathlib import Path

import pytest
from sandboxes import REFERENCE, session_for

from grader.hidden.judge.contract_rules import Judging, Unchanging
from grader.hidden.judge.corpus import families
from grader.hidden.judge.judging import BATCH, KNOWN, Known, tallies
from grader.sandbox.values import Walk

pytestmark = [pytest.mark.bwrap]

FAMILY = "ids"
BUGGY = Path(__file__).resolve().parents[3] / "fixtures" / "submissions" / "buggy"
# Rule 1's bug: an id of digits comes back as an int, on a few of the family's scenarios.
DIGITS_BECOME_INTS = (BUGGY / "envelope" / "digit-string-ids-become-ints.py").read_text()


def verdicts_of(server, source, serial, shared):
    """Judge FAMILY for `source`; return each rule's count and fault, as a student reads them."""
    session = session_for(server, source, serial)
    session.shared = shared
    try:
        found = tallies(session, FAMILY)
    finally:
        session.stop()
    return {name: (t.judged, t.fault and str(t.fault)) for name, t in found.items()}


def observations_kept(shared):
    known = shared[KNOWN]
    assert isinstance(known, Known)
    return [len(seen) for (family, _), seen in sorted(known.verdicts.items()) if family == FAMILY]


def test_a_second_submission_showing_the_same_is_not_judged_again(fork_server):
    shared = {}
    first = verdicts_of(fork_server, REFERENCE, 0, shared)
    kept = observations_kept(shared)
    again = verdicts_of(fork_server, REFERENCE, 1, shared)
    assert again == first
    assert all(fault is None for _, fault in first.values())
    assert kept == observations_kept(shared) == [1] * len(families()[FAMILY])


def test_a_different_observation_is_judged_anew_as_if_alone(fork_server):
    shared = {}
    verdicts_of(fork_server, REFERENCE, 0, shared)
    buggy = verdicts_of(fork_server, DIGITS_BECOME_INTS, 1, shared)
    alone = verdicts_of(fork_server, DIGITS_BECOME_INTS, 2, {})
    assert buggy == alone
    assert buggy["correlation"][1] is not None
    assert [rule for rule, (_, fault) in buggy.items() if fault] == ["correlation"]
    assert 2 in observations_kept(shared)  # the scenarios the bug shows on hold both


def test_a_family_is_encoded_once_per_job(fork_server):
    shared = {}
    verdicts_of(fork_server, REFERENCE, 0, shared)
    lines = {key: line for key, line in shared.items() if isinstance(line, bytes)}
    batches = -(-len(families()[FAMILY]) // BATCH)
    assert len(lines) == batches
    verdicts_of(fork_server, REFERENCE, 1, shared)
    assert all(shared[key] is line for key, line in lines.items())


def test_rule_3_compares_each_failure_with_the_first_for_its_request():
    judging = Judging()
    key = ("request", ("NotFoundError",), ("not_found",))
    first = {"id": 1, "ok": False, "value": None, "error": "not_found"}
    assert Unchanging(((key, first),)).against(judging, Walk()) is None
    assert Unchanging(((key, dict(first)),)).against(judging, Walk()) is None
    changed = Unchanging(((key, {**first, "value": "the message"}),)).against(judging, Walk())
    assert changed is not None and "the class alone" in changed
    shown_first = Unchanging(("the envelope showed the type", (key, {"id": 2})))
    assert shown_first.against(judging, Walk()) == "the envelope showed the type"


def test_rule_3_holds_twins_to_the_same_code():
    """Twins of one class whose codes differ (one read from a message) break rule 3."""
    judging = Judging()
    key = ("request", ("ValueError",), ("tool_failed",))
    plain = {"id": 1, "ok": False, "value": None, "error": "tool_failed"}
    assert Unchanging(((key, plain),)).against(judging, Walk()) is None
    clued = Unchanging(((key, {**plain, "error": "not_found"}),)).against(judging, Walk())
    assert clued is not None and "different envelopes" in clued
