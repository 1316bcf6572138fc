"""What a submission makes the job work is held to its own time: the next student does not wait.

The attack (adversarial/envelope/repeats-one-text-in-failures.py) hands back failures holding one
text of 100,000 characters 300 times: sent once per envelope, it cost the job 13.7 s of its own
processor time where its twin cost 2.4 s, past the 10 s limit, while the student's clock saw
0.6 s; the next student came in that much later. The job's runner grades it here in this
process, between copies of the reference and beside its twin, and the job's processor time on
each (time.thread_time: what the next student in the job waits for) is measured.
"""

import time
from dataclasses import replace

import pytest

from grader.job.grading import Runner
from grader.job.suite import hidden_calls
from grader.model import CodeUnit, Limits
from grader.paths import SUBMISSIONS
from grader.selfcheck.expectations import find_fixture

pytestmark = [pytest.mark.bwrap]

ATTACK = "repeats-one-text-in-failures"
# What the attack may cost the job beyond its twin: it sends 300 back-references per failure,
# each decoded and stepped over once per walk (measured: 1.3 s more, on a loaded host).
OVER_TWIN_SECONDS = 3.0
# The job's time on a reference after the attack: a few tenths of a second when nothing spills.
REFERENCE_SECONDS = 1.5
# A submission's trusted time past its own limit: one stretch of a walk, one reply decoded and
# one test's bookkeeping (measured: 0.04 s).
PAST_LIMIT_SECONDS = 0.5


def unit(path):
    return (CodeUnit(path.stem, path.name, path.read_text(encoding="utf-8")),)


def job_seconds(runner, order):
    """Grade each (key, file) in turn in one runner; return each one's result and job time."""
    graded = {}
    for key, path in order:
        started = time.thread_time()
        result = runner.run_submission({"key": key, "units": unit(path), "error": None})
        graded[key] = (result, time.thread_time() - started)
    return graded


@pytest.fixture(scope="module")
def runner(contained_server):
    return Runner(hidden_calls(), Limits(), contained_server, lambda *_: None)


@pytest.fixture(scope="module")
def graded(runner):
    reference = SUBMISSIONS / "correct/reference.py"
    order = [
        ("warm-up", reference),
        ("attack", find_fixture("adversarial", ATTACK)),
        ("after-attack", reference),
        ("twin", find_fixture("twins", ATTACK)),
        ("after-twin", reference),
    ]
    graded = job_seconds(runner, order)
    for key, (result, seconds) in graded.items():
        print(f"{key}: {result['status']}, the job's time {seconds:.2f} s")
    return graded


def passed(result):
    return [outcome["status"] == "passed" for outcome in result["outcomes"]]


def test_the_attack_earns_what_its_twin_does_and_no_more(graded):
    attack, _ = graded["attack"]
    twin, _ = graded["twin"]
    assert attack["status"] == twin["status"] == "completed"
    assert passed(attack) == passed(twin)


def test_the_attack_costs_the_job_about_what_its_twin_does(graded):
    _, attack = graded["attack"]
    _, twin = graded["twin"]
    assert attack < twin + OVER_TWIN_SECONDS
    assert attack < Limits().timeout / 2  # nowhere near the limit it once passed


def test_the_next_student_in_the_job_is_graded_in_full_and_soon(graded):
    for key in ("after-attack", "after-twin"):
        result, seconds = graded[key]
        assert all(passed(result)), key
        assert seconds < REFERENCE_SECONDS, key


def test_a_submission_stops_the_jobs_work_soon_after_its_own_limit(runner, contained_server):
    """With a limit the attack's reading overruns, the job stops within a stated margin."""
    limit = 0.2
    small = Runner(runner.tests, replace(Limits(), timeout=limit), contained_server, print)
    attack = [("attack", find_fixture("adversarial", ATTACK))]
    result, seconds = job_seconds(small, attack)["attack"]
    print(f"limit {limit} s: {result['status']}, the job's time {seconds:.2f} s")
    # The tests after the overrun are marked timeout, and the job's work stops soon after.
    assert any(outcome["status"] == "timeout" for outcome in result["outcomes"])
    assert seconds < limit + PAST_LIMIT_SECONDS
