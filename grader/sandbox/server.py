"""The trusted side of a job's fork server: start it once, ask it for each new worker.

    with ForkServer.open("auto") as server:      # once per job: runtime copy, isolation
        worker = Worker(server, limits, allowance, uid)  # grader.sandbox.client: a fork

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

from grader.sandbox import containment, orphans, runtime
from grader.sandbox.cleanup import temporary_folder
from grader.sandbox.containment import Isolation
from grader.sandbox.inside.protocol import CONTROL_FD

STOP_SECONDS = 2.0
# How long a spawn may wait for the fork server: its start with every import, on a crowded machine.
SPAWN_SECONDS = 120.0


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
        with temporary_folder("grader-runtime-") as folder:
            isolation = containment.choose_isolation(runtime.prepare_runtime(folder), wanted)
            server = cls(isolation, worker_core)
            server.spawn_ready()  # it imports while the caller goes on
            try:
                yield server
            finally:
                server.close()

    def spawn_ready(self) -> None:
        """Start the fork server now, if it is not running, so that it is warm when needed."""
        if self.process is None or self.process.poll() is not None:
            self._start()

    def spawn(self, fds: list[int], scratch: str | None) -> tuple[int, int | None]:
        """Fork a worker with these descriptors; return its number for `kill` and its clock.

        `fds` are, in order: the request pipe's reading end, the reply pipe's writing end, the
        output file, the status pipe's writing end and any `cgroup.procs` files to join. The
        clock is the worker's /proc stat file, open (grader.sandbox.meters reads it), or None
        where the fork server could not give it; the caller closes it.
        """
        self.spawn_ready()
        self.spawned += 1
        message = {
            "op": "spawn",
            "child": self.spawned,
            "private": self.isolation.private_mounts,
            "scratch": scratch,
            "core": self.worker_core,
            "confine": self.isolation.confinement(scratch),
        }
        self._send(message, fds)
        return self.spawned, self._clock_of(self.spawned)

    def _clock_of(self, number: int) -> int | None:
        """Wait for the fork server's answer to spawn `number`; return the clock it sent.

        The wait is the fork server's (its start, on a first spawn), never a student's: it is
        bounded by the wall clock alone. An answer to an earlier spawn, one whose wait ran out,
        is passed over.
        """
        assert self.control is not None
        deadline = time.monotonic() + SPAWN_SECONDS
        while (left := deadline - time.monotonic()) > 0:
            if not select.select([self.control], [], [], left)[0]:
                return None
            try:
                data, fds = _receive(self.control)
            except OSError:
                return None
            if not data:
                return None  # the fork server has gone: the worker's first request says so
            if data == b"%d" % number:
                return fds[0] if fds else None
            for fd in fds:
                os.close(fd)
        return None

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
        orphans.reap_briefly(below, STOP_SECONDS)

    def _below(self) -> set[int]:
        """Return the processes just below the server's own; under bubblewrap, wait for them.

        Bubblewrap forks the process that becomes the sandbox's first one a moment after it
        starts: a server closed at once must still know it, to reap it when it comes here.
        """
        assert self.process is not None
        deadline = time.monotonic() + STOP_SECONDS
        below = orphans.children_of(self.process.pid)
        while (
            not below
            and self.isolation.mode == "bubblewrap"
            and self.process.poll() is None
            and time.monotonic() < deadline
        ):
            time.sleep(0.005)
            below = orphans.children_of(self.process.pid)
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


def _receive(control: socket.socket) -> tuple[bytes, list[int]]:
    """Return one message from the fork server and the descriptors that came with it."""
    fds = array.array("i")
    data, ancillary, _flags, _address = control.recvmsg(64, socket.CMSG_SPACE(fds.itemsize))
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
    return data, list(fds)
