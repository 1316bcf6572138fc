"""The warm parent of a job's workers: it imports everything once, then forks a worker per request.

The trusted side starts this process once per job, inside the sandbox, and asks it over a
control socket for each new worker. Starting Python and importing the worker's code costs tens
of milliseconds; a fork of this already warm process costs about one. The parent itself never
runs student code and never installs the guard: each child sets itself up from a clean copy.

A request to spawn carries the new worker's descriptors (its channel, its output file, a pipe
for its exit status and the `cgroup.procs` files of its control groups) with SCM_RIGHTS. The
child joins its control groups, gets private mounts (its own /tmp, /dev/shm and scratch tmpfs,
and its own IPC namespace) where the sandbox allows them, renumbers its channel to the fixed
descriptors, forgets the parent's start line, confines its files with Landlock where the trusted
side asks (`confine`: the folders it may read and those it may change), and becomes a worker:
`guard.install()` switches to the submission's user, applies limits and the seccomp filter
before any student code runs.

    spawn  {"op": "spawn", "child": N, "private": bool, "scratch": path or null,
            "core": the processor the worker keeps to, or null,
            "confine": {"read": [paths], "write": [paths]} or null}
           with descriptors [request, reply, output, status, *cgroup.procs];
           answered "N" with the worker's /proc/PID/stat, open (its processor clock)
    kill   {"op": "kill", "child": N, "sweep_uid": uid or null}

The parent reaps each child and writes how it ended ("exit N" or "signal N") to its status pipe.
When the trusted side closes the control socket, the parent kills every child and leaves.
"""

import array
import contextlib
import fcntl
import json
import os
import select
import signal
import socket
import sys
from typing import Any, NoReturn

from grader.sandbox.inside import guard, landlock, loop, syscalls
from grader.sandbox.inside.protocol import CONTROL_FD

# The control socket arrives on CONTROL_FD (protocol.py); it is moved out of the way at once, so
# that a worker can take the fixed numbers of its channel.
_OUT_OF_THE_WAY = 100
_MAX_FDS = 16
_MESSAGE_BYTES = 1 << 16
# Where the channel, output and input of a worker go (see grader.sandbox.inside.channel).
_STDIN, _STDOUT, _STDERR, _REQUEST, _REPLY = 0, 1, 2, 3, 4
_SETUP_FAILED = 70  # a worker's exit status when its set-up failed before any student code
Children = dict[int, tuple[int, int]]  # pid -> (child number, status descriptor)
Server = tuple[socket.socket, tuple[int, int], Children, int]  # see _become_worker


def serve() -> NoReturn:
    """Fork workers on request until the trusted side closes the control socket, then leave.

    It leaves with os._exit: the interpreter's own tear-down would take milliseconds more,
    which the job waits for as it stops the server, and frees nothing a process's end does not.
    """
    control = socket.socket(fileno=fcntl.fcntl(CONTROL_FD, fcntl.F_DUPFD_CLOEXEC, _OUT_OF_THE_WAY))
    os.close(CONTROL_FD)
    wake_read, wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda _number, _frame: None)
    children: Children = {}
    watched: list[socket.socket | int] = [control, wake_read]
    try:
        while True:
            ready = select.select(watched, [], [])[0]
            if wake_read in ready:
                _drain(wake_read)
                _reap(children)
            if control in ready and not _answer(control, children, (wake_read, wake_write)):
                break
    finally:
        for pid in children:
            _kill(pid)
    os._exit(0)


def _answer(control: socket.socket, children: Children, own: tuple[int, int]) -> bool:
    """Handle one request; return False when the trusted side has gone."""
    data, fds = _receive(control)
    if not data:
        for fd in fds:
            os.close(fd)
        return False
    message = json.loads(data)
    if message["op"] == "spawn":
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:
            _become_worker(message, fds, (control, own, children, parent))
        children[pid] = (message["child"], fds[3])
        for fd in fds[:3] + fds[4:]:
            os.close(fd)
        _send_clock(control, message["child"], pid)
    elif message["op"] == "kill":
        for pid, (number, _status) in children.items():
            if number == message["child"]:
                _kill(pid)
        if message.get("sweep_uid") is not None:
            _sweep(message["sweep_uid"])
    return True


def _send_clock(control: socket.socket, number: int, pid: int) -> None:
    """Answer a spawn with the worker's /proc stat file, open: its processor clock.

    Opened here, where the worker's process id means something, and read by the trusted side
    wherever it is: an open /proc file stays bound to its process. No file, where /proc is
    missing: the trusted side then charges wall time, and says so.
    """
    answer = b"%d" % number
    with contextlib.suppress(OSError):  # the trusted side no longer listens
        try:
            clock = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            control.send(answer)
            return
        try:
            rights = array.array("i", [clock])
            control.sendmsg([answer], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, rights)])
        finally:
            os.close(clock)


def _receive(control: socket.socket) -> tuple[bytes, list[int]]:
    """Return one message and the descriptors that came with it."""
    fds = array.array("i")
    data, ancillary, _flags, _address = control.recvmsg(
        _MESSAGE_BYTES, socket.CMSG_SPACE(_MAX_FDS * fds.itemsize)
    )
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
    return data, list(fds)


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 512):
            pass
    except BlockingIOError:
        pass


def _reap(children: Children) -> None:
    """Collect every ended child and write how it ended to its status pipe."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _number, status_fd = children.pop(pid, (None, None))
        if status_fd is None:
            continue  # a sweeper
        if os.WIFSIGNALED(status):
            words = f"signal {os.WTERMSIG(status)}"
        else:
            words = f"exit {os.waitstatus_to_exitcode(status)}"
        with contextlib.suppress(OSError):  # the trusted side no longer listens
            os.write(status_fd, words.encode("ascii"))
        os.close(status_fd)


def _kill(pid: int) -> None:
    """Kill a worker and whatever is still in its process group."""
    for target in (-pid, pid):
        with contextlib.suppress(OSError):
            os.kill(target, signal.SIGKILL)


def _sweep(uid: int) -> None:
    """Kill every process of `uid`, even one that left the worker's group (no seccomp here)."""
    if os.fork() == 0:
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            os.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)


def _become_worker(message: dict[str, Any], fds: list[int], server: Server) -> None:
    """In the new child: set it up as a fresh worker and serve; never returns.

    `server` is what the child must let go of: the control socket, the server's own pipe, the
    other workers' status pipes, and the server's process id.
    """
    control, own, children, parent = server
    code = _SETUP_FAILED
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.close(control.detach())
        for fd in own:
            os.close(fd)
        for _number, status_fd in children.values():
            os.close(status_fd)
        children.clear()
        os.setsid()  # its own process group, which the parent kills whole
        if message.get("core") is not None:
            # Beside its job, which waits while it works: see grader.batch.dispatch.cores_for_jobs.
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, {message["core"]})
        syscalls.die_with_parent()
        if os.getppid() != parent:  # the parent died before the promise was made
            return
        request, reply, output, status, *groups = fds
        os.close(status)
        for group in groups:  # "0" moves the writer itself into the group
            os.write(group, b"0")
            os.close(group)
        null = os.open(os.devnull, os.O_RDONLY)
        _renumber(((null, _STDIN), (output, _STDOUT), (output, _STDERR)))
        _renumber(((request, _REQUEST), (reply, _REPLY)))
        if message["private"]:
            syscalls.private_mounts()
            os.chdir(syscalls.SCRATCH)
        else:
            os.chdir(message["scratch"])
            os.environ["HOME"] = os.environ["TMPDIR"] = message["scratch"]
        if message.get("confine") is not None:  # after the mounts, which it would refuse
            landlock.restrict(message["confine"]["read"], message["confine"]["write"])
        _forget_start_line()
        guard.install()
        code = 0
        loop.serve()
    except BaseException:
        pass
    finally:
        os._exit(code)


def _renumber(pairs: tuple[tuple[int, int], ...]) -> None:
    """Put each descriptor at its number, whichever numbers they held before."""
    # First out of the way, so that moving one cannot overwrite another.
    moved = [(fcntl.fcntl(fd, fcntl.F_DUPFD, _OUT_OF_THE_WAY), number) for fd, number in pairs]
    for fd in {fd for fd, _number in pairs}:
        os.close(fd)
    for fd, number in moved:
        os.dup2(fd, number)  # dup2 leaves the new descriptor inheritable
        os.close(fd)


def _forget_start_line() -> None:
    """Empty the globals of the command line that started the parent.

    Its frame stays at the bottom of every worker's stack, where student code could walk to it.
    """
    frame = sys._getframe()
    while frame.f_back is not None:
        frame = frame.f_back
    names = frame.f_globals
    for name in [name for name in names if not name.startswith("__")]:
        del names[name]
