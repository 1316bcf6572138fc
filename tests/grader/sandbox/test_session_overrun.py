"""What a student reads when the grader's own time on their submission ran out, and why."""

from types import SimpleNamespace

from grader.model import Limits
from grader.sandbox.client import Allowance
from grader.sandbox.session import MANY_RESTARTS, SubmissionSession

pytestmark = []

LIMITS = Limits(timeout=2.5)


def session_that_spent_the_grader_s_time(workers_started: int) -> SubmissionSession:
    """A session (with no server: none is asked for) whose trusted-side time is spent."""
    server = SimpleNamespace(isolation=SimpleNamespace(uid_for=lambda _serial: None))
    session = SubmissionSession((), LIMITS, server)  # type: ignore[arg-type]
    session.allowance = Allowance(LIMITS.held_mb << 20, cpu_seconds=-1.0)
    session.workers_started = workers_started
    return session


def test_an_overrun_after_many_restarts_names_the_ended_processes_not_large_values():
    words = session_that_spent_the_grader_s_time(MANY_RESTARTS + 1).overrun()
    assert f"the grader started it {MANY_RESTARTS + 1} times" in words
    assert "large" not in words


def test_an_overrun_with_one_worker_is_said_as_reading_what_the_code_sent():
    words = session_that_spent_the_grader_s_time(1).overrun()
    assert words.startswith("Reading what your code handed the grader took longer")


def test_no_overrun_says_nothing():
    session = session_that_spent_the_grader_s_time(MANY_RESTARTS + 1)
    session.allowance = Allowance(LIMITS.held_mb << 20, cpu_seconds=60.0)
    assert session.overrun() == ""
