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
from host_expectations import slower
from sandboxes import session_for

from grader.hidden.probes import returns, scenario
from grader.paths import PROJECT_ROOT
from grader.sandbox import cgroups, clock
from grader.sandbox.handlers import ToolRecord
from grader.sandbox.problems import SandboxProblem
from grader.sandbox.wording import describe

pytestmark = []

REFERENCE = (PROJECT_ROOT / "fixtures/submissions/correct/reference.py").read_text(encoding="utf-8")
BASE_LIMIT = 0.6  # a test's limit on CI's machine; session_for grows it on slower hosts
TEST_LIMIT = slower(BASE_LIMIT)  # the limit on this host
NEIGHBOURS = 4  # on one CPU with the worker: it gets about a fifth of that CPU
# /proc counts user and system time in whole ticks, each cut down: a process's own clock may
# read up to two ticks less than the time it burned.
PROC_CLOCK_SLACK = 2 / os.sysconf("SC_CLK_TCK")


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


def stopwatch_on(fake, allowance=1.0, wall=1000.0):
    """A stopwatch for one request, on the made-up clock and meter."""
    return clock.Stopwatch(allowance, clock.Meter(fake.meter), fake.now + wall)


def test_a_request_is_charged_only_the_processor_time_it_used(monkeypatch):
    fake = FakeTime(monkeypatch)
    stopwatch = stopwatch_on(fake)
    fake.run(3.0, cpu=0.02)  # three seconds late on a crowded machine, 20 ms of computing
    assert stopwatch.finish() == pytest.approx(0.02)


def test_a_starved_or_waiting_worker_is_charged_nothing_for_the_wait(monkeypatch):
    fake = FakeTime(monkeypatch)
    stopwatch = stopwatch_on(fake)
    for _ in range(200):  # 20 s on the wall clock: starved, blocked on the disk, or asleep
        fake.run(0.1, cpu=0.0005)
        assert not stopwatch.tick()
    assert stopwatch.finish() == pytest.approx(0.1)


def test_the_start_of_a_request_is_where_the_last_one_ended(monkeypatch):
    fake = FakeTime(monkeypatch)
    fake.run(0.5, cpu=0.3)  # the worker's start-up, before it says it is ready: not charged
    meter = clock.Meter(fake.meter)
    first = clock.Stopwatch(1.0, meter, fake.now + 100)
    fake.run(0.1, cpu=0.05)
    assert first.finish() == pytest.approx(0.05)
    second = clock.Stopwatch(1.0, meter, fake.now + 100)
    fake.run(0.1, cpu=0.07)
    assert second.finish() == pytest.approx(0.07)
    assert fake.reads == 3  # one reading when the worker was ready, then one a request


def test_every_process_of_the_worker_is_charged(monkeypatch):
    fake = FakeTime(monkeypatch)
    stopwatch = stopwatch_on(fake)
    fake.run(0.4, cpu=0.8)  # two processes spinning side by side
    assert not stopwatch.tick()
    fake.run(0.2, cpu=0.4)
    assert stopwatch.tick()


def test_only_the_submissions_wall_clock_end_stops_code_that_waits(monkeypatch):
    fake = FakeTime(monkeypatch)
    stopwatch = stopwatch_on(fake, wall=0.3)
    fake.run(0.3)
    assert stopwatch.wait() == 0.0
    assert stopwatch.tick()
    assert stopwatch.finish() == 0.0


def test_the_wall_clock_limit_is_generous_and_grows_with_the_time_limit():
    assert clock.wall_limit(10.0) == 10.0 * clock.WALL_FACTOR
    assert clock.wall_limit(0.5) == clock.WALL_FLOOR >= 30
    assert clock.WALL_FACTOR >= 5


def test_without_a_meter_wall_time_is_charged(monkeypatch):
    fake = FakeTime(monkeypatch)
    stopwatch = clock.Stopwatch(1.0, None, fake.now + 100)
    fake.run(0.4)
    assert not stopwatch.tick()
    fake.run(0.7)
    assert stopwatch.tick()
    assert stopwatch.finish() == pytest.approx(1.1)


def test_a_meter_that_can_no_longer_be_read_keeps_its_last_reading(monkeypatch):
    readings = iter([1.0, 1.5])

    def read():
        value = next(readings, None)
        if value is None:
            raise OSError("the worker has ended")
        return value

    meter = clock.Meter(read)
    assert meter.now() == 1.5
    assert meter.now() == 1.5


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
    session = session_for(server, source, timeout=10.0, test_timeout=BASE_LIMIT)
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
    assert "time charged as the processor time each worker's cgroup counts" in described


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
def test_code_that_sleeps_is_charged_nothing_and_stopped_by_the_wall_clock(
    contained_server, monkeypatch
):
    # 30 s and more as graded, shortened here: the submission's wall clock ends 3 s after it
    # starts, wherever it runs.
    monkeypatch.setattr(clock, "WALL_FLOOR", 3.0)
    monkeypatch.setattr(clock, "WALL_FACTOR", 0.0)
    status, wall, charged = timed(contained_server, burning(30, how="sleep"))
    assert status == "timeout"
    assert charged < TEST_LIMIT / 2
    assert wall < clock.WALL_FLOOR + 1


@pytest.mark.bwrap
def test_a_worker_without_a_cgroup_is_charged_by_its_own_processor_clock(
    contained_server, monkeypatch
):
    monkeypatch.setattr(cgroups.WorkerGroup, "create", classmethod(lambda *_args, **_kw: None))
    status, _wall, charged = timed(contained_server, burning(TEST_LIMIT / 2))
    assert status == "passed"
    assert TEST_LIMIT / 2 - PROC_CLOCK_SLACK <= charged < TEST_LIMIT
    status, _wall, charged = timed(contained_server, burning(TEST_LIMIT * 3))
    assert status == "timeout"
    assert TEST_LIMIT <= charged < TEST_LIMIT + 3 * clock.POLL_SECONDS


@pytest.mark.bwrap
def test_a_workers_start_up_is_not_charged(contained_server):
    session = session_for(contained_server, REFERENCE, timeout=10.0, test_timeout=BASE_LIMIT)
    try:
        session.start()
        # Loading the reference computes little: the fork, the mounts, Landlock and the guard
        # came before the meter's first reading.
        assert session.spent < slower(0.05)
    finally:
        session.stop()


@pytest.mark.bwrap
def test_a_slow_grader_costs_the_student_no_time(contained_server, monkeypatch):
    answer = ToolRecord.answer

    def slow_answer(record, arguments):
        time.sleep(TEST_LIMIT)  # the trusted side, crowded out, answers each call late
        return answer(record, arguments)

    monkeypatch.setattr(ToolRecord, "answer", slow_answer)
    session = session_for(contained_server, REFERENCE, timeout=10.0, test_timeout=BASE_LIMIT)
    try:
        session.start()
        started = time.monotonic()
        observation = session.call(scenario(returns({"n": 1}), repeat=2))
        waited = time.monotonic() - started
    finally:
        session.stop()
    assert [e["ok"] for e in observation.envelopes] == [True, True]
    assert waited > 2 * TEST_LIMIT  # a charge of its wall time would have timed it out
