"""A job's fork server being set up by a child process while the job goes on.

    with ForkServer.opening("auto") as opening:   # the set-up child starts at once
        opening.start_ahead()                     # once the runtime is copied: a server on it
        opening.require("bubblewrap")             # what the run asks for, once it is known
        server = opening.ready()                  # the probe's verdict, and the server it allows

The set-up (the runtime copy and its bytecode, then the bubblewrap probe) needs nothing of the
job's, which reads its hidden tests and waits for what to grade meanwhile, on another processor:
a forked child, not a thread, so that neither waits for the other's lock. The child says two
things on its pipe, a line each: the runtime is copied; then the isolation chosen (or why there
is none). Between the two, the probe starts Python inside bubblewrap, which is also what the
server's own start takes most of its time on: so the job may start the server under bubblewrap
on the runtime alone (`start_ahead`), beside the probe. That server is used only if the probe
then chooses exactly its isolation; otherwise it is stopped unused, and the server the verdict
allows is started, as it would have been without it.
"""

import contextlib
import json
import os
import select
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

from grader.sandbox import containment, runtime, syscalls
from grader.sandbox.containment import Isolation
from grader.sandbox.forkserver import ForkServer
from grader.sandbox.inside import landlock


class Opening:
    """A fork server being set up beside its job (see the module's summary).

    A job opens before it knows what it grades (grader.job), so with the isolation it would
    choose unasked; `require` then says what the run asks for, and a choice that does not meet
    it is made again here, on the runtime the child already prepared.
    """

    def __init__(self, folder: Path, wanted: str, worker_core: int | None) -> None:
        self.worker_core = worker_core
        self.asked = self.wanted = wanted  # what the child chooses for; what the run wants
        # This process's block of user ids: the child's own process id would pick another.
        self.uid = containment.worker_uid()
        self.server: ForkServer | None = None
        self.ahead: ForkServer | None = None  # started on the runtime alone, before the verdict
        self.outcome: Isolation | str | None = None  # the isolation, or why there is none
        self.said: list[dict[str, Any]] = []  # the child's lines, as read so far
        self.unread = b""
        read_end, write_end = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(read_end)
            _set_up_and_report(folder, wanted, write_end)
        os.close(write_end)
        self.report = read_end

    def require(self, wanted: str) -> None:
        """Ask for the isolation `wanted` ("auto", "bubblewrap" or "process") before `ready`."""
        assert self.server is None, "the isolation is chosen once the server has started"
        self.wanted = wanted

    def keep_workers_to(self, core: int | None) -> None:
        """Keep every worker on `core` (None: anywhere), from the next one the server forks."""
        self.worker_core = core
        for server in (self.server, self.ahead):
            if server is not None:
                server.worker_core = core

    def start_ahead(self) -> None:
        """Start a server under bubblewrap if the runtime is copied and bubblewrap may be used.

        Never waits, and tries once: a server that will not start is the probe's to explain.
        """
        if self.ahead is not None or self.server is not None:
            return
        self._listen(wait=False)
        copied = self.said[0] if self.said else {}
        if "runtime" not in copied or self._verdict_heard() or not _may_try_bubblewrap(self.wanted):
            return
        isolation = Isolation(
            "bubblewrap", copied["runtime"], self.uid, _program(copied), copied["landlock"]
        )
        self.ahead = server = ForkServer(isolation, self.worker_core)
        with contextlib.suppress(OSError):
            server.spawn_ready()

    def start_if_set_up(self) -> None:
        """Start the server if the set-up has finished well, else start one ahead; never wait.

        The child's report is read once: a set-up that failed, or a server that would not
        start, is left for `ready` to raise again.
        """
        if self.outcome is not None or self.server is not None:
            return
        self.start_ahead()  # listens; starts nothing once the verdict is in
        if self._verdict_heard():
            with contextlib.suppress(RuntimeError, OSError):
                self.ready()

    def ready(self) -> ForkServer:
        """Wait for the set-up, start the server if it is not started, and return it.

        Raise RuntimeError, saying why, when the set-up failed (bubblewrap required where it
        cannot run, say).
        """
        if self.server is None:
            isolation = self.isolation()
            if self.ahead is not None and self.ahead.isolation == isolation:
                server = self.ahead  # what the probe chose, and already on its way
            else:
                self._stop_ahead()
                server = ForkServer(isolation, self.worker_core)
            server.spawn_ready()  # it imports while the job goes on (already, if ahead)
            self.server = server  # only once started: a failed start is tried again next time
            self.ahead = None
        return self.server

    def isolation(self) -> Isolation:
        """Wait for the set-up and return the isolation it allows for what is asked.

        Raise RuntimeError, saying why, when there is none (bubblewrap required where it
        cannot run, say); a server started ahead is stopped then.
        """
        if self.outcome is None:
            self._listen(wait=True)
            self.outcome = _verdict(self.said[-1] if self.said else {}, self.uid)
        outcome = self.outcome
        if isinstance(outcome, Isolation) and not _meets(outcome, self.asked, self.wanted):
            try:  # chosen unasked, then asked otherwise: rare (--isolation process, say)
                self.outcome = containment.choose_isolation(outcome.runtime, self.wanted)
            except RuntimeError as error:
                self.outcome = str(error)
        if isinstance(self.outcome, str):
            self._stop_ahead()
            raise RuntimeError(self.outcome)
        return self.outcome

    def _verdict_heard(self) -> bool:
        """Say whether the child has chosen the isolation, or failed, or gone without a word."""
        return self.report < 0 or any("mode" in said or "error" in said for said in self.said)

    def _listen(self, wait: bool) -> None:
        """Read what the child has said; with `wait`, until it has said all (then reap it)."""
        while self.report >= 0 and (wait or select.select([self.report], [], [], 0)[0]):
            chunk = os.read(self.report, 1 << 16)
            if not chunk:
                self._reap()
                break
            *lines, self.unread = (self.unread + chunk).split(b"\n")
            self.said.extend(_parsed(line) for line in lines if line.strip())

    def _reap(self) -> None:
        if self.pid:
            os.waitpid(self.pid, 0)
            self.pid = 0
        if self.report >= 0:
            os.close(self.report)
            self.report = -1

    def _stop_ahead(self) -> None:
        if self.ahead is not None:
            self.ahead.close()
            self.ahead = None

    def close(self) -> None:
        """Wait for the set-up (its folder is about to go), then stop the servers started."""
        self._reap()
        self._stop_ahead()
        if self.server is not None:
            self.server.close()


def _may_try_bubblewrap(wanted: str) -> bool:
    """Say whether a probe for `wanted` could choose bubblewrap here at all."""
    forced = os.environ.get(containment.ISOLATION_VARIABLE) == "process"
    return wanted != "process" and not forced and shutil.which("bwrap") is not None


def _meets(isolation: Isolation, asked: str, wanted: str) -> bool:
    """Say whether `isolation`, chosen when `asked` was wanted, is what `wanted` would choose.

    A choice of bubblewrap proves it runs, so it is what "auto" would choose too; a fallback
    chosen under "auto" is the one "process" forces.
    """
    if wanted in (asked, isolation.mode):
        return True
    return wanted == "auto" and isolation.mode == "bubblewrap"


def _set_up_and_report(folder: Path, wanted: str, report: int) -> NoReturn:
    """In the set-up child: prepare the runtime, say so, choose the isolation, say it, leave."""
    try:
        # The bubblewrap probe leaves a process that outlives bubblewrap: it must come here, to
        # be reaped by the probe, not to the job once this child has gone.
        containment.adopt_orphans()
        copied = runtime.prepare_runtime(folder)
        program = syscalls.worker_program()
        _say(report, {"runtime": str(copied), "seccomp": _hex(program), "landlock": landlock.abi()})
        isolation = containment.choose_isolation(copied, wanted)
        said: dict[str, object] = {"mode": isolation.mode, "runtime": isolation.runtime}
        said |= {"seccomp": _hex(isolation.seccomp), "landlock": isolation.landlock}
    except BaseException as error:  # said to the job, which raises it in its own process
        said = {"error": str(error) or type(error).__name__}
    finally:
        with contextlib.suppress(BaseException):
            _say(report, said)
        # Nothing of the job's to clean up here: its files, folders and exit hooks are its own.
        os._exit(0)


def _say(report: int, message: Mapping[str, object]) -> None:
    os.write(report, json.dumps(message).encode("utf-8") + b"\n")


def _hex(program: bytes | None) -> str | None:
    return None if program is None else program.hex()


def _parsed(line: bytes) -> dict[str, Any]:
    """Return one line the child said; a torn one says nothing (the verdict then says so)."""
    try:
        said = json.loads(line)
    except ValueError:
        return {}
    return said if isinstance(said, dict) else {}


def _verdict(said: dict[str, Any], uid: int | None) -> Isolation | str:
    """Return the isolation the child's last line chose, or why the set-up failed."""
    if "error" in said:
        return str(said["error"])
    if "mode" not in said:
        return "the runtime set-up ended without a word"
    return Isolation(said["mode"], said["runtime"], uid, _program(said), said["landlock"])


def _program(said: Mapping[str, Any]) -> bytes | None:
    return None if said["seccomp"] is None else bytes.fromhex(said["seccomp"])
