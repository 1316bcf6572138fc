"""How a submission's time is charged: processor time while it computes, wall time while it waits.

A worker's cgroup counts the processor time of everything it runs (cpuacct), so a student is
charged for their own computing and never for the time a busy neighbour held the processor:
under load an honest test takes longer on the wall clock and still passes. Code that waits
instead of computing (sleep, a blocking read) uses next to no processor time, so a stretch in
which the worker got less than WAITING_SHARE of a processor is charged at wall-clock time, as
before. Where cgroups are missing, every stretch is charged at wall-clock time.

Short requests cost one clock reading: the processor meter is read only once a request has run
for POLL_SECONDS without answering, and a request that answers sooner is charged its wall time.

`poll_until` is how the trusted side waits for a process it stopped to be gone.
"""

import time
from collections.abc import Callable

POLL_SECONDS = 0.05  # how often a busy worker's processor time is read
# Below this share of one processor over a stretch, the worker was waiting, not starved: a
# runnable process gets its turn within the scheduler's latency (milliseconds) even on a
# crowded machine, while a sleeping one gets nothing.
WAITING_SHARE = 0.01
# However it is charged, no request outlives this many times its limit on the wall clock.
WALL_FACTOR = 5
# A process killed or ended is gone within a millisecond or so: the first pause of poll_until.
FIRST_PAUSE = 0.0002


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


class Stopwatch:
    """Charge one request as it runs, and say when it has used up its allowance."""

    def __init__(
        self, allowance: float, cpu: Callable[[], float] | None, wall_end: float | None = None
    ) -> None:
        """`cpu` reads the worker's processor seconds, or is None where nothing counts them."""
        self.allowance = allowance
        self.cpu = cpu
        self.mark = time.monotonic()
        self.mark_cpu: float | None = None
        self.charged = 0.0
        self.excluded = 0.0  # seconds of the current stretch the worker spent waiting for us
        backstop = self.mark + allowance * WALL_FACTOR
        self.wall_end = backstop if wall_end is None else min(backstop, wall_end)

    def wait(self) -> float:
        """Return how long to wait for the worker before looking at the meter again."""
        return max(0.0, min(POLL_SECONDS, self.wall_end - time.monotonic()))

    def tick(self) -> bool:
        """Charge the stretch since the last tick; return whether the request is over."""
        now = time.monotonic()
        self._charge(now)
        return self.charged >= self.allowance or now >= self.wall_end

    def exclude_since(self, started: float) -> None:
        """Leave out of the charge the time since `started` (the worker's own clock reading).

        A worker that called a tool waits, using no processor time, until the trusted side
        answers: on a busy machine that wait is the grader's slowness, never the student's.
        """
        now = time.monotonic()
        self.excluded += max(0.0, now - max(started, self.mark))

    def finish(self) -> float:
        """Charge the last stretch and return what the whole request cost."""
        now = time.monotonic()
        if self.mark_cpu is None:  # answered before the first poll: its wall time, no read
            self.charged += self._active(now)
            self.mark = now
        else:
            self._charge(now)
        return self.charged

    def _active(self, now: float) -> float:
        """Return the wall time of the stretch ending `now`, less the waits left out of it."""
        active = max(0.0, now - self.mark - self.excluded)
        self.excluded = 0.0
        return active

    def _charge(self, now: float) -> None:
        active = self._active(now)
        if self.cpu is None:
            self.charged += active
        else:
            used = self.cpu()
            computed = None if self.mark_cpu is None else used - self.mark_cpu
            # The first stretch has no earlier reading to compare with: charge its wall time.
            if computed is None or computed < WAITING_SHARE * active:  # waiting, or unknown
                self.charged += active
            else:
                self.charged += computed  # every process's time counts
            self.mark_cpu = used
        self.mark = now
