"""Time is charged to the student who used it: their own processor time, wall time while waiting.

The stopwatch's rules are checked on a made-up clock; then real workers run under a crowded
processor (spinning neighbours pinned to the worker's CPU), where honest code takes several times
its limit on the wall clock and must still pass, while code that computes or sleeps past its
limit must still time out. Like the other kernel tests, these need cgroups (root, as in CI).
"""

import os
import subprocess
import sys
import time

import pytest
from sandboxes import session_for

from grader.hidden.probes import returns, scenario
from grader.paths import PROJECT_ROOT
from grader.sandbox import cgroups, clock
from grader.sandbox.handlers import ToolRecord
from grader.sandbox.problems import SandboxProblem
from grader.sandbox.wording import describe

pytestmark = []

REFERENCE = (PROJECT_ROOT / "fixtures/submissions/correct/reference.py").read_text(encoding="utf-8")
TEST_LIMIT = 0.6
NEIGHBOURS = 4  # on one CPU with the worker: it gets about a fifth of that CPU


class FakeTime:
    """A monotonic clock the test moves by hand, and a processor meter it sets."""

    def __init__(self, monkeypatch):
        self.now = 100.0
        self.cpu = 0.0
        self.reads = 0
        monkeypatch.setattr(clock.time, "monotonic", lambda: self.now)

    def meter(self):
        self.reads += 1
        return self.cpu

    def run(self, wall, cpu=0.0):
        self.now += wall
        self.cpu += cpu


def test_without_a_meter_every_stretch_costs_its_wall_time(monkeypatch):
    fake = FakeTime(monkeypatch)
    stopwatch = clock.Stopwatch(1.0, None)
    fake.run(0.4)
    assert not stopwatch.tick()
    fake.run(0.7)
    assert stopwatch.tick()
    assert stopwatch.finish() == pytest.approx(1.1)


def test_a_request_that_answers_before_the_first_poll_is_charged_its_wall_time_unread(monkeypatch):
    fake = FakeTime(monkeypatch)
    stopwatch = clock.Stopwatch(1.0, fake.meter)
    fake.run(0.02, cpu=0.001)
    assert stopwatch.finish() == pytest.approx(0.02)
    assert fake.reads == 0


def test_a_starved_worker_is_charged_only_the_processor_time_it_got(monkeypatch):
    fake = FakeTime(monkeypatch)
    stopwatch = clock.Stopwatch(1.0, fake.meter)
    fake.run(0.05)
    stopwatch.tick()  # the first stretch has nothing to compare with: wall time
    for _ in range(20):  # 2 s on the wall clock, a tenth of a processor
        fake.run(0.1, cpu=0.01)
        assert not stopwatch.tick()
    assert stopwatch.finish() == pytest.approx(0.05 + 0.2)


def test_a_waiting_worker_is_charged_wall_time(monkeypatch):
    fake = FakeTime(monkeypatch)
    stopwatch = clock.Stopwatch(1.0, fake.meter)
    fake.run(0.05)
    stopwatch.tick()
    fake.run(0.5, cpu=0.001)  # asleep: well under WAITING_SHARE of a processor
    assert not stopwatch.tick()
    fake.run(0.5, cpu=0.001)
    assert stopwatch.tick()


def test_every_process_of_the_worker_is_charged(monkeypatch):
    fake = FakeTime(monkeypatch)
    stopwatch = clock.Stopwatch(1.0, fake.meter)
    fake.run(0.05)
    stopwatch.tick()
    fake.run(0.4, cpu=0.8)  # two processes spinning side by side
    assert not stopwatch.tick()
    fake.run(0.2, cpu=0.4)
    assert stopwatch.tick()


def test_no_request_outlives_the_wall_clock_backstop(monkeypatch):
    fake = FakeTime(monkeypatch)
    stopwatch = clock.Stopwatch(1.0, fake.meter)
    fake.run(0.05)
    stopwatch.tick()
    fake.run(clock.WALL_FACTOR * 1.0, cpu=0.05 * clock.WALL_FACTOR)
    assert stopwatch.charged < 1.0
    assert stopwatch.tick()


def test_a_wait_for_the_graders_answer_to_a_tool_call_is_not_charged(monkeypatch):
    fake = FakeTime(monkeypatch)
    stopwatch = clock.Stopwatch(1.0, fake.meter)
    fake.run(0.05)
    stopwatch.tick()
    called_at = fake.now
    fake.run(1.5)  # a busy grader takes 1.5 s to answer; the worker waits, using nothing
    stopwatch.exclude_since(called_at)
    fake.run(0.1, cpu=0.1)
    assert not stopwatch.tick()
    assert stopwatch.finish() == pytest.approx(0.05 + 0.1)


def test_the_session_backstop_bounds_a_request_too(monkeypatch):
    fake = FakeTime(monkeypatch)
    stopwatch = clock.Stopwatch(1.0, fake.meter, wall_end=fake.now + 0.3)
    fake.run(0.3)
    assert stopwatch.wait() == 0.0
    assert stopwatch.tick()


def burning(seconds, how="compute"):
    """A correct invoke_tool that first computes (or sleeps) for `seconds`."""
    if how == "compute":
        body = (
            f"    end = time.process_time() + {seconds}\n"
            "    while time.process_time() < end:\n"
            "        pass\n"
        )
    else:
        body = f"    time.sleep({seconds})\n"
    return (
        REFERENCE
        + "\n_honest = invoke_tool\nimport time\n\n"
        + f"def invoke_tool(request, tools, **options):\n{body}"
        + "    return _honest(request, tools, **options)\n"
    )


@pytest.fixture
def crowded_cpu(monkeypatch):
    """Return what pins a session's worker to CPU 0 and fills that CPU with neighbours.

    The neighbours start only when asked, once the worker has loaded: loading is charged apart
    from the test's request, and a slow load under the crowd would only measure the machine.
    The wall-clock backstop is moved out of the way (it is checked on the made-up clock): a
    fifth of a processor, less on a busy machine, would meet it before the limit itself.
    """
    monkeypatch.setattr(clock, "WALL_FACTOR", 20)
    spinners = []

    def crowd(session):
        for pid in session.worker.group.pids():  # the worker, by its id outside the sandbox
            os.sched_setaffinity(pid, {0})
        # Each in a session of its own, so that the scheduler weighs each as one neighbour.
        # This process, the trusted side that reads the meter, is left off the crowded CPU:
        # the worker's charge is under test, not how late a starved grader looks at it.
        for _ in range(NEIGHBOURS):
            spinner = subprocess.Popen(
                [sys.executable, "-c", "while True: pass"], start_new_session=True
            )
            os.sched_setaffinity(spinner.pid, {0})
            spinners.append(spinner)

    try:
        yield crowd
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def timed(server, source, crowd=None):
    """Run one scenario after loading; return how it ended, its wall time and its charge.

    `crowd`, when given, is called with the session between loading and the scenario.
    """
    session = session_for(server, source, timeout=10.0, test_timeout=TEST_LIMIT)
    try:
        session.start()  # loading is a request of its own, charged apart from the test's
        if crowd is not None:
            crowd(session)
        started, charged_before = time.monotonic(), session.spent
        try:
            envelope = session.call(scenario(returns({"n": 1}))).envelope
            status = "passed" if envelope["ok"] else "wrong"
        except SandboxProblem as problem:
            status = problem.status
        return status, time.monotonic() - started, session.spent - charged_before
    finally:
        session.stop()


@pytest.mark.bwrap
@pytest.mark.cgroups
def test_workers_here_have_a_processor_meter():
    group = cgroups.WorkerGroup.create(f"clock-{os.getpid()}", 64 << 20, 8)
    assert group is not None
    try:
        assert group.counts_cpu
    finally:
        group.close()


@pytest.mark.bwrap
@pytest.mark.cgroups
def test_the_isolation_line_says_how_time_is_charged(contained_server):
    described = describe(contained_server.isolation)
    assert "time charged as each submission's own processor time" in described


@pytest.mark.bwrap
@pytest.mark.cgroups
def test_honest_code_on_a_crowded_processor_passes_though_it_outlasts_its_limit(
    contained_server, crowded_cpu
):
    status, wall, charged = timed(contained_server, burning(TEST_LIMIT / 2), crowded_cpu)
    assert status == "passed"
    assert wall > TEST_LIMIT  # a wall-clock limit would have timed this student out
    assert charged < TEST_LIMIT


@pytest.mark.bwrap
@pytest.mark.cgroups
def test_code_that_computes_past_its_limit_on_a_crowded_processor_still_times_out(
    contained_server, crowded_cpu
):
    status, wall, charged = timed(contained_server, burning(TEST_LIMIT * 3), crowded_cpu)
    assert status == "timeout"
    assert charged >= TEST_LIMIT
    # Charged its processor time, well under the wall time the crowd made it take (the
    # wall-clock backstop itself is checked on the made-up clock above).
    assert charged < wall / 2


@pytest.mark.bwrap
def test_code_that_sleeps_past_its_limit_times_out_at_its_limit(contained_server):
    status, wall, charged = timed(contained_server, burning(30, how="sleep"))
    assert status == "timeout"
    assert TEST_LIMIT <= charged < TEST_LIMIT + 2 * clock.POLL_SECONDS
    # Charged as it waits: a backstop alone would hold it for WALL_FACTOR times its limit.
    assert wall < TEST_LIMIT * clock.WALL_FACTOR


@pytest.mark.bwrap
def test_a_slow_grader_costs_the_student_no_time(contained_server, monkeypatch):
    answer = ToolRecord.answer

    def slow_answer(record, arguments):
        time.sleep(TEST_LIMIT)  # the trusted side, crowded out, answers each call late
        return answer(record, arguments)

    monkeypatch.setattr(ToolRecord, "answer", slow_answer)
    session = session_for(contained_server, REFERENCE, timeout=10.0, test_timeout=TEST_LIMIT)
    try:
        session.start()
        started = time.monotonic()
        observation = session.call(scenario(returns({"n": 1}), repeat=2))
        waited = time.monotonic() - started
    finally:
        session.stop()
    assert [e["ok"] for e in observation.envelopes] == [True, True]
    assert waited > 2 * TEST_LIMIT  # a charge of its wall time would have timed it out
