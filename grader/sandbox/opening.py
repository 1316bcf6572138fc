"""A job's fork server being set up by a child process while the job goes on.

    with ForkServer.opening("auto") as opening:   # the set-up child starts at once
        opening.require("bubblewrap")             # what the run asks for, once it is known
        server = opening.ready()                  # the probe's verdict, and the server it allows

The set-up (the runtime copy and its bytecode, then the bubblewrap probe) needs nothing of the
job's, which reads its hidden tests and waits for what to grade meanwhile, on another processor:
a forked child, not a thread, so that neither waits for the other's lock. The child says one
line on its pipe: the isolation chosen, or why there is none.
"""

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

from grader.sandbox import containment, orphans, runtime
from grader.sandbox.containment import Isolation
from grader.sandbox.server import ForkServer


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
        if self.server is not None:
            self.server.worker_core = core

    def ready(self) -> ForkServer:
        """Wait for the set-up, start the server if it is not started, and return it.

        Raise RuntimeError, saying why, when the set-up failed (bubblewrap required where it
        cannot run, say).
        """
        if self.server is None:
            isolation = self.isolation()
            server = ForkServer(isolation, self.worker_core)
            server.spawn_ready()  # it imports while the job goes on
            self.server = server  # only once started: a failed start is tried again next time
        return self.server

    def isolation(self) -> Isolation:
        """Wait for the set-up and return the isolation it allows for what is asked.

        Raise RuntimeError, saying why, when there is none (bubblewrap required where it
        cannot run, say).
        """
        if self.outcome is None:
            self._listen()
            self.outcome = _verdict(self.said[-1] if self.said else {}, self.uid)
        outcome = self.outcome
        if isinstance(outcome, Isolation) and not _meets(outcome, self.asked, self.wanted):
            try:  # chosen unasked, then asked otherwise: rare (--isolation process, say)
                self.outcome = containment.choose_isolation(outcome.runtime, self.wanted)
            except RuntimeError as error:
                self.outcome = str(error)
        if isinstance(self.outcome, str):
            raise RuntimeError(self.outcome)
        return self.outcome

    def _listen(self) -> None:
        """Read what the child says, until it has said all (then reap it)."""
        while self.report >= 0:
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

    def close(self) -> None:
        """Wait for the set-up (its folder is about to go), then stop the server, if started."""
        self._reap()
        if self.server is not None:
            self.server.close()


def _meets(isolation: Isolation, asked: str, wanted: str) -> bool:
    """Say whether `isolation`, chosen when `asked` was wanted, is what `wanted` would choose.

    A choice of bubblewrap proves it runs, so it is what "auto" would choose too; a fallback
    chosen under "auto" is the one "process" forces.
    """
    if wanted in (asked, isolation.mode):
        return True
    return wanted == "auto" and isolation.mode == "bubblewrap"


def _set_up_and_report(folder: Path, wanted: str, report: int) -> NoReturn:
    """In the set-up child: prepare the runtime, choose the isolation, say it, and leave."""
    try:
        # The bubblewrap probe leaves a process that outlives bubblewrap: it must come here, to
        # be reaped by the probe, not to the job once this child has gone.
        orphans.adopt_orphans()
        copied = runtime.prepare_runtime(folder)
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
