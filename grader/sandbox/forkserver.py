"""The trusted side of a job's fork server: start it once, ask it for each new worker.

    with ForkServer.open("auto") as server:      # once per job: runtime copy, isolation
        worker = Worker(server, limits, uid)     # grader.sandbox.client: a fork, not a start

    with ForkServer.opening("auto") as opening:  # the same, set up while the caller goes on
        ...                                      # (a job collects its hidden tests)
        server = opening.ready()

The fork server (grader/sandbox/inside/forkserver.py) runs inside the sandbox, imports the
worker's code once and forks each worker from that warm copy. This side hands it each worker's
descriptors over a Unix socket and asks it to kill a worker; it never hands it anything a
worker could use against another. A fork server that died (a student cannot reach it, but the
machine may kill it) is started again for the next worker.
"""

import array
import contextlib
import json
import os
import select
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

from grader.sandbox import containment, runtime
from grader.sandbox.cleanup import temporary_folder
from grader.sandbox.containment import Isolation
from grader.sandbox.inside.protocol import CONTROL_FD

STOP_SECONDS = 2.0


class ForkServer:
    """One job's warm parent of workers, started on first use and stopped by `close()`."""

    def __init__(self, isolation: Isolation, worker_core: int | None = None) -> None:
        """`worker_core`, if given, is the processor every worker keeps to."""
        self.isolation = isolation
        self.worker_core = worker_core
        self.process: subprocess.Popen[bytes] | None = None
        self.control: socket.socket | None = None
        self.spawned = 0

    @classmethod
    @contextlib.contextmanager
    def open(cls, wanted: str = "auto", worker_core: int | None = None) -> Iterator["ForkServer"]:
        """Yield a fork server for a fresh runtime copy and the strongest isolation that works.

        `wanted="process"` forces the fallback isolation. The runtime folder goes with
        remove_tree, which nothing a worker without bubblewrap could leave there can stop.
        """
        with cls.opening(wanted, worker_core) as opening:
            yield opening.ready()

    @staticmethod
    @contextlib.contextmanager
    def opening(wanted: str = "auto", worker_core: int | None = None) -> Iterator["Opening"]:
        """Like `open`, but yield at once: the set-up goes on beside the caller (see Opening)."""
        with temporary_folder("grader-runtime-") as folder:
            opening = Opening(folder, wanted, worker_core)
            try:
                yield opening
            finally:
                opening.close()

    def spawn_ready(self) -> None:
        """Start the fork server now, if it is not running, so that it is warm when needed."""
        if self.process is None or self.process.poll() is not None:
            self._start()

    def spawn(self, fds: list[int], scratch: str | None) -> int:
        """Fork a worker with these descriptors; return its number for `kill`.

        `fds` are, in order: the request pipe's reading end, the reply pipe's writing end, the
        output file, the status pipe's writing end and any `cgroup.procs` files to join.
        """
        self.spawn_ready()
        self.spawned += 1
        message = {
            "op": "spawn",
            "child": self.spawned,
            "private": self.isolation.private_mounts,
            "scratch": scratch,
            "core": self.worker_core,
        }
        self._send(message, fds)
        return self.spawned

    def kill(self, number: int, sweep_uid: int | None = None) -> None:
        """Kill worker `number`; with `sweep_uid`, every process of that user too."""
        with contextlib.suppress(OSError):
            self._send({"op": "kill", "child": number, "sweep_uid": sweep_uid}, [])

    def close(self) -> None:
        """Stop the fork server, which kills every worker it still has."""
        # Under bubblewrap the server runs below a process of bubblewrap's own, which outlives
        # bubblewrap and comes to this process when it adopts orphans (a job does): reap it.
        below = set() if self.process is None else self._below()
        if self.control is not None:
            self.control.close()
            self.control = None
        if self.process is not None:
            try:
                self.process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None
        containment.reap_briefly(below, STOP_SECONDS)

    def _below(self) -> set[int]:
        """Return the processes just below the server's own; under bubblewrap, wait for them.

        Bubblewrap forks the process that becomes the sandbox's first one a moment after it
        starts: a server closed at once must still know it, to reap it when it comes here.
        """
        assert self.process is not None
        deadline = time.monotonic() + STOP_SECONDS
        below = containment.children_of(self.process.pid)
        while (
            not below
            and self.isolation.mode == "bubblewrap"
            and self.process.poll() is None
            and time.monotonic() < deadline
        ):
            time.sleep(0.005)
            below = containment.children_of(self.process.pid)
        return below

    def _start(self) -> None:
        self.close()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)

        def give_socket() -> None:  # in the new process, before it runs the command
            os.dup2(theirs.fileno(), CONTROL_FD)  # dup2 leaves the new descriptor inheritable

        try:
            self.process = subprocess.Popen(
                containment.forkserver_command(self.isolation),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                cwd="/",
                env=containment.forkserver_environment(self.isolation),
                close_fds=False,  # Python's own descriptors are not inherited (PEP 446)
                preexec_fn=give_socket,
                start_new_session=True,
            )
        finally:
            theirs.close()
        self.control = ours

    def _send(self, message: dict[str, object], fds: list[int]) -> None:
        assert self.control is not None
        data = json.dumps(message).encode("ascii")
        rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
        self.control.sendmsg([data], rights)


class Opening:
    """A fork server being set up by a child process while its job goes on.

    The set-up (the runtime copy and its bytecode, the bubblewrap probe) takes about 0.1 s of
    work that needs nothing of the job's, which imports pytest and collects its hidden tests
    meanwhile, on another processor: a forked child, not a thread, so that neither waits for
    the other's lock. The server process itself is started by the caller, in `ready` or
    `start_if_set_up`.

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

    def start_if_set_up(self) -> None:
        """Start the server if the set-up has finished well; never wait for it.

        The child's report is read once: after that its pipe is closed, and a set-up that
        failed, or a server that would not start, is left for `ready` to raise again.
        """
        if self.outcome is None and select.select([self.report], [], [], 0)[0]:
            with contextlib.suppress(RuntimeError, OSError):
                self.ready()

    def ready(self) -> ForkServer:
        """Wait for the set-up, start the server if it is not started, and return it.

        Raise RuntimeError, saying why, when the set-up failed (bubblewrap required where it
        cannot run, say).
        """
        if self.server is None:
            server = ForkServer(self._isolation(), self.worker_core)
            server.spawn_ready()  # it imports while the job goes on
            self.server = server  # only once started: a failed start is tried again next time
        return self.server

    def _isolation(self) -> Isolation:
        if self.outcome is None:
            self.outcome = _read_report(self.report, self.uid)
            self._reap()
        outcome = self.outcome
        if isinstance(outcome, Isolation) and not _meets(outcome, self.asked, self.wanted):
            try:  # chosen unasked, then asked otherwise: rare (--isolation process, say)
                self.outcome = containment.choose_isolation(outcome.runtime, self.wanted)
            except RuntimeError as error:
                self.outcome = str(error)
        if isinstance(self.outcome, str):
            raise RuntimeError(self.outcome)
        return self.outcome

    def _reap(self) -> None:
        if self.pid:
            os.waitpid(self.pid, 0)
            self.pid = 0
            os.close(self.report)

    def close(self) -> None:
        """Wait for the set-up (its folder is about to go), then stop the server if started."""
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
    """In the set-up child: prepare the runtime, choose the isolation, report it, leave."""
    try:
        # The bubblewrap probe leaves a process that outlives bubblewrap: it must come here, to
        # be reaped by the probe, not to the job once this child has gone.
        containment.adopt_orphans()
        isolation = containment.choose_isolation(runtime.prepare_runtime(folder), wanted)
        seccomp = None if isolation.seccomp is None else isolation.seccomp.hex()
        text = json.dumps(
            {"mode": isolation.mode, "runtime": isolation.runtime, "seccomp": seccomp}
        )
    except BaseException as error:  # said to the job, which raises it in its own process
        text = json.dumps({"error": str(error) or type(error).__name__})
    finally:
        with contextlib.suppress(BaseException):
            os.write(report, text.encode("utf-8"))
        # Nothing of the job's to clean up here: its files, folders and exit hooks are its own.
        os._exit(0)


def _read_report(report: int, uid: int | None) -> Isolation | str:
    """Read what the set-up child said: the isolation, or why the set-up failed."""
    chunks = []
    while chunk := os.read(report, 1 << 16):
        chunks.append(chunk)
    try:
        said = json.loads(b"".join(chunks))
    except ValueError:
        return "the runtime set-up ended without a word"
    if "error" in said:
        return str(said["error"])
    seccomp = None if said["seccomp"] is None else bytes.fromhex(said["seccomp"])
    return Isolation(said["mode"], said["runtime"], uid, seccomp)
