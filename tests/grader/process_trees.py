"""Watching a grading run's processes from a test: every process under it, even once orphaned.

Shared by the tests that stop, kill or crowd a run (test_resume_runs, test_batch_robustness),
with the submission wrapper that makes a run last long enough to interrupt, and by those that
look for fork servers (test_gradescope_visible_checks).
"""

import contextlib
import os
import signal
import threading
import time

import psutil

WAIT_SECONDS = 300  # generous: the machine may be busy with other test runs
# Appended to a submission: it answers like before, its first calls a little late, so a run lasts
# long enough to interrupt after its first results and before its last, however many scenarios the
# hidden suite sends.
SLOW_WRAPPER = '''

import time as _time

_unhurried = invoke_tool
_late_calls = [300]


def invoke_tool(*args, **kwargs):
    """Answer like the reference, the first calls a little late."""
    if _late_calls[0] > 0:
        _late_calls[0] -= 1
        _time.sleep(0.01)
    return _unhurried(*args, **kwargs)
'''


def fork_servers_below(process=None):
    """The fork servers among `process`'s descendants (this process's by default).

    Inside bubblewrap or not; the bubblewrap probe's Python is not one.
    """
    found = []
    for child in (process or psutil.Process()).children(recursive=True):
        try:
            if "grader.sandbox.inside.forkserver" in " ".join(child.cmdline()):
                found.append(child)
        except psutil.Error:
            pass
    return found


def wait_for(condition, seconds=WAIT_SECONDS):
    """Poll `condition` until it holds; fail the test if it never does."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting after {seconds} s"
        time.sleep(0.05)


def _process_table():
    """Yield (pid, parent pid, start time, state) for every process on the machine."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as stat:
                fields = stat.read().rpartition(")")[2].split()
        except OSError:
            continue
        yield int(entry), int(fields[1]), fields[19], fields[0]


class ProcessTree:
    """Remembers a process and every process started under it, even after they are orphaned."""

    def __init__(self, root):
        self.lock = threading.Lock()
        self.seen = {root: None}
        self.watching = True
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _watch(self):
        while self.watching:
            self.sweep()
            time.sleep(0.02)

    def sweep(self):
        """Add every process whose parent is already known."""
        table = list(_process_table())
        with self.lock:
            for pid, parent, started, _state in table:
                if parent in self.seen and pid not in self.seen:
                    self.seen[pid] = started

    def running(self):
        """Return the known processes still running (zombies count as ended)."""
        self.sweep()
        with self.lock:
            seen = dict(self.seen)
        return [
            pid
            for pid, parent, started, state in _process_table()
            if pid in seen and seen[pid] in (None, started) and state != "Z"
        ]

    def stop(self):
        """Stop watching, and kill whatever is still running so a failed test leaves nothing."""
        self.watching = False
        self.thread.join()
        for pid in self.running():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
