"""How a submission's time is charged: the processor time its own worker used, nothing else.

The kernel counts a worker's processor time, in its cgroup (every process in it) or, where
there is none, in the worker process's own clock (`meters.py`). A request is charged what that
count grew by while it ran, so a busy machine, a loaded disk or a slow grader lengthens the
request on the wall clock and costs the student nothing: a starved or waiting process uses no
processor time. The worker's start-up (fork, mounts, Landlock, the guard) happens before its
first reading and is never charged.

Code that sleeps uses no processor time either; the wall clock only ends real hangs, once per
submission, after `wall_limit` (a generous multiple of its time limit).

`poll_until` is how the trusted side waits for a process it stopped to be gone.
"""

import contextlib
import time
from collections.abc import Callable

POLL_SECONDS = 0.05  # how often a busy worker's processor time is read
# A submission may take this many times its time limit on the wall clock, and never less than
# WALL_FLOOR: on a crowded machine a correct submission that uses 0.4 s of processor time takes
# tens of seconds, and the wall clock is only there for code that waits forever.
WALL_FACTOR = 6
WALL_FLOOR = 30.0
# A process killed or ended is gone within a millisecond or so: the first pause of poll_until.
FIRST_PAUSE = 0.0002


def wall_limit(timeout: float) -> float:
    """Return how long a submission allowed `timeout` processor seconds may take on the wall."""
    return max(WALL_FACTOR * timeout, WALL_FLOOR)


def poll_until(done: Callable[[], bool], deadline: float, longest: float) -> bool:
    """Call `done` until it says True or the monotonic `deadline` passes; return its last answer.

    The pauses between calls start at FIRST_PAUSE and double up to `longest`: a fixed pause of
    several milliseconds was most of the time it took to stop a worker or its fork server.
    """
    pause = FIRST_PAUSE
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(pause)
        pause = min(pause * 2, longest)
    return True


class Meter:
    """A worker's processor seconds as the kernel counts them, and the last reading taken.

    A worker between requests waits for the next one and uses nothing, so the reading that
    ends one request is where the next one starts: one reading a request.
    """

    def __init__(self, read: Callable[[], float]) -> None:
        self.read = read
        self.last = read()  # taken once the worker is ready: its start-up is not charged

    def now(self) -> float:
        """Read the meter; keep and return the reading (the last one, once the worker is gone)."""
        # Once its processes have ended, what they used was read while they ran.
        with contextlib.suppress(OSError, ValueError):
            self.last = self.read()
        return self.last


class Stopwatch:
    """Charge one request as it runs, and say when it has used up its allowance."""

    def __init__(self, allowance: float, meter: Meter | None, wall_end: float) -> None:
        """`meter` is the worker's, or None where nothing counts: then wall time is charged."""
        self.allowance = allowance
        self.meter = meter
        self.started = time.monotonic()
        self.start = meter.last if meter is not None else self.started
        self.wall_end = wall_end

    def wait(self) -> float:
        """Return how long to wait for the worker before looking at the meter again."""
        return max(0.0, min(POLL_SECONDS, self.wall_end - time.monotonic()))

    def tick(self) -> bool:
        """Say whether the request is over: its allowance used, or the wall clock's end reached."""
        return self.used() >= self.allowance or time.monotonic() >= self.wall_end

    def used(self) -> float:
        """Return what the request has cost so far."""
        if self.meter is None:
            return time.monotonic() - self.start
        return max(0.0, self.meter.now() - self.start)

    finish = used  # what the whole request cost, read once it has ended
