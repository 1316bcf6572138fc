"""The trusted side of the sandbox: get a worker, talk to it with time limits, read its output.

How the worker is shut in (bubblewrap, its own user, the runtime folder) is decided in
`grader.sandbox.containment`; the job's fork server (`grader.sandbox.server`) forks it. This
module holds it to its limits and labels how a call ended: an answer, or a SandboxProblem whose
status is timeout, crash, memory or output_limit.
"""

import json
import math
import os
import secrets
import select
import signal
import tempfile
import time
from collections.abc import Callable
from typing import NewType

from grader.sandbox import cgroups, containment, meters
from grader.sandbox.cleanup import remove_tree
from grader.sandbox.clock import Meter, Stopwatch
from grader.sandbox.inside.picture import json_text
from grader.sandbox.inside.protocol import (
    READ_BYTES,
    BatchRequest,
    Hello,
    JobMessage,
    LoadRequest,
    Reply,
    RunRequest,
    ToolAnswer,
    ToolCall,
    WorkerMessage,
)
from grader.sandbox.problems import (
    SandboxCrash,
    SandboxForbidden,
    SandboxMemory,
    SandboxProblem,
    SandboxTimeout,
)
from grader.sandbox.server import ForkServer

# What holding a decoded reply may take, beyond its bytes: a list or object, and an item.
HELD_PER_CONTAINER = 64
HELD_PER_ITEM = 48
# How long a new worker may take to be ready on the wall clock, never charged: its set-up only.
START_SECONDS = 120.0
# Generous enough for any honest submission; they stop a runaway one from hurting the machine.
FIXED_LIMITS = {
    "open_files": 64,
    "file_size": 64 << 20,  # also the most output a worker may print before output_limit
    "core_size": 0,
}


class Allowance:
    """What one submission may cost the trusted side: what it holds of replies, and its time.

    Everything a worker sends is kept until the submission is done (its observations are
    shared by the tests that ask the same scenario), and decoding and judging it is the
    trusted side's own processor time, which the student's clock does not see. Both are
    charged here, per submission: an overrun is that student's status, so a submission can
    neither make the grader hold gigabytes nor keep the next student waiting.
    """

    def __init__(self, held_bytes: int, cpu_seconds: float) -> None:
        self.held_left = held_bytes
        self.cpu_seconds = cpu_seconds
        self.cpu_start = time.thread_time()

    def hold(self, reply: bytes) -> None:
        """Charge one reply's text; raise SandboxMemory once the submission has sent too much."""
        self.held_left -= held_size(reply)
        if self.held_left < 0:
            raise SandboxMemory(HELD_REASON)

    def check(self) -> None:
        """Raise a SandboxProblem if the submission's allowance is spent, else nothing."""
        if self.held_left < 0:
            raise SandboxMemory(HELD_REASON)
        if self.spent_time():
            raise SandboxTimeout(TRUSTED_TIME_REASON)

    def spent_time(self) -> bool:
        """Say whether the trusted side has spent the submission's time on it."""
        return time.thread_time() - self.cpu_start > self.cpu_seconds


def held_size(reply: bytes) -> int:
    """Return about what the trusted side holds for a reply once decoded: more than its bytes.

    JSON's `[]` is 2 bytes and a Python list 56; counting brackets and commas (in C, without
    decoding) bounds the objects a reply can become.
    """
    containers = reply.count(b"[") + reply.count(b"{")
    return len(reply) + HELD_PER_CONTAINER * containers + HELD_PER_ITEM * reply.count(b",")


HELD_REASON = "the code sent the grader more data than it may hold for one submission"
TRUSTED_TIME_REASON = (
    "reading what the code sent took the grader longer than the submission's time limit"
)


def worker_limits(cpu_seconds: int, memory_mb: int, processes: int) -> dict[str, int]:
    """Return the resource limits a worker sets on itself before any student code runs."""
    return dict(
        FIXED_LIMITS,
        cpu_seconds=cpu_seconds,
        address_space=memory_mb << 20,
        processes=processes,
    )


# A request's line as the worker reads it: a batch the same for every submission is encoded once.
Encoded = NewType("Encoded", bytes)


def encode_request(message: JobMessage) -> Encoded:
    """Return the line that carries `message` to a worker."""
    return Encoded((json_text(message) + "\n").encode("ascii"))


class Worker:
    """One running worker process, with its pipes, scratch folder and captured output."""

    def __init__(
        self,
        server: ForkServer,
        limits: dict[str, int],
        allowance: Allowance,
        uid: int | None = None,
    ) -> None:
        """Have `server` (the job's ForkServer) fork a worker for the user `uid`.

        Its replies are charged to `allowance`, the submission's.
        """
        self.server = server
        self.allowance = allowance
        self.isolation = server.isolation
        self.limits = limits
        self.uid = uid
        self.key = secrets.token_hex(16).encode("ascii")
        self.scratch = containment.make_scratch(self.isolation, uid)
        request_read, self.request_write = os.pipe()
        self.reply_read, reply_write = os.pipe()
        self.status_read, status_write = os.pipe()
        # Unnamed, and outside the scratch folder: the worker cannot swap it for a link to a
        # file it may not read, which the grader would then copy into the student's report.
        self.output = tempfile.TemporaryFile(prefix="grader-output-")  # noqa: SIM115 - closed in close()
        self.output_offset = 0
        # Memory (shared memory and tmpfs files included), processes and a fair share of the
        # processor, held by the kernel for this worker alone; None where cgroups are missing.
        self.group = cgroups.WorkerGroup.create(
            f"worker-{os.getpid()}-{secrets.token_hex(4)}",
            memory_bytes=limits["address_space"],
            pids=limits["processes"],
        )
        joins = [] if self.group is None else self.group.open_procs()
        try:
            fds = [request_read, reply_write, self.output.fileno(), status_write, *joins]
            scratch = None if self.scratch is None else str(self.scratch)
            self.number, self.clock = server.spawn(fds, scratch)
        finally:
            for fd in (request_read, reply_write, status_write, *joins):
                os.close(fd)
        self.status: tuple[str, int] | None = None  # how the worker ended, once known
        self.buffer = bytearray()  # grown in place: see receive()
        self.meter: Meter | None = None  # read once the worker says it is ready
        self.is_ready = False
        self.send(self.hello())

    def hello(self) -> Hello:
        """The first request: the key, the user to become and the limits, before any code."""
        message: Hello = {"key": self.key.decode("ascii"), "uid": self.uid, "limits": self.limits}
        if self.isolation.seccomp is not None:
            message["seccomp"] = self.isolation.seccomp.hex()
        return message

    def send(self, message: JobMessage | Encoded) -> None:
        """Write one request; a worker that is gone shows as how it ended."""
        line = message if isinstance(message, bytes) else encode_request(message)
        try:
            os.write(self.request_write, line)
        except OSError:
            raise self._death() from None

    def ready(self) -> Meter | None:
        """Wait until the worker is set up, before any student code; return its meter.

        Its start-up (fork, mounts, Landlock, the guard) is the grader's, charged to no one:
        the meter's first reading is taken once the worker says it is ready. None where nothing
        counts its processor time (then wall time is charged, and the run's summary says so).
        """
        if not self.is_ready:
            read = meters.worker_meter(self.group, self.clock)
            started = Stopwatch(math.inf, None, time.monotonic() + START_SECONDS)
            try:
                answer = self.receive(started)
            except SandboxTimeout:
                raise SandboxProblem("the worker did not start in time") from None
            if "ready" not in answer:
                raise SandboxProblem("the worker did not say it was ready")
            self.meter = None if read is None else Meter(read)
            self.is_ready = True
        return self.meter

    def ask(
        self,
        message: LoadRequest | RunRequest | BatchRequest | Encoded,
        stopwatch: Stopwatch,
        on_call: Callable[[ToolCall], ToolAnswer] | None = None,
    ) -> Reply:
        """Send one request and return the final reply, answering tool calls on the way.

        A tool call's round trip costs the worker no processor time: it waits for the answer.
        """
        self.send(message)
        while True:
            reply = self.receive(stopwatch)
            if "ready" in reply:
                raise SandboxProblem("the worker said it was ready in the middle of a request")
            if "call" not in reply:
                return reply
            if on_call is None:
                raise SandboxProblem("the worker called a tool outside a test")
            self.send(on_call(reply))

    def receive(self, stopwatch: Stopwatch) -> WorkerMessage:
        """Read one signed reply within the request's time, or raise a SandboxProblem."""
        # A megabyte reply arrives in pipe-sized pieces: each piece is appended in place and only
        # it is searched, where re-copying and re-scanning the whole buffer was quadratic.
        end = self.buffer.find(b"\n")
        while end < 0:
            if not select.select([self.reply_read], [], [], stopwatch.wait())[0]:
                if stopwatch.tick():
                    raise SandboxTimeout("the code ran past its time limit")
                continue
            chunk = os.read(self.reply_read, READ_BYTES)
            if not chunk:
                raise self._death()
            end = chunk.find(b"\n")
            if end >= 0:
                end += len(self.buffer)
            self.buffer += chunk
            if len(self.buffer) > self.allowance.held_left:  # a reply too large to hold
                self.allowance.hold(bytes(self.buffer))
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        self.allowance.hold(line)
        key, _, text = line.partition(b" ")
        if not secrets.compare_digest(key, self.key):
            raise SandboxForbidden("the code wrote to the grader's channel")
        try:
            reply: WorkerMessage = json.loads(text)
        except ValueError:
            raise SandboxProblem("the worker's reply could not be read") from None
        if type(reply) is not dict:
            raise SandboxProblem("the worker's reply was not a message")
        if reply.get("status") == "memory":
            raise SandboxMemory("the code needed more memory than the limit allows")
        return reply

    def _death(self) -> SandboxProblem:
        """Return the problem that describes how the worker ended."""
        status = self.ended()
        if self.group is not None and self.group.memory_exhausted():
            return SandboxMemory("the code needed more memory than the limit allows")
        ended_by = None if status is None else status[1] if status[0] == "signal" else None
        if ended_by == signal.SIGXFSZ:
            problem = SandboxCrash("the code printed more output than the limit allows")
            problem.status = "output_limit"
            return problem
        if ended_by == signal.SIGXCPU:
            return SandboxTimeout("the code used more processor time than the limit allows")
        described = "unknown" if status is None else f"{status[0]} {status[1]}"
        return SandboxCrash(f"the process running the code ended ({described})")

    def ended(self, wait: float = 1.0) -> tuple[str, int] | None:
        """Return how the worker ended, ("exit", code) or ("signal", number), or None if unknown.

        The fork server writes it to the status pipe once it has reaped the worker.
        """
        if self.status is None and select.select([self.status_read], [], [], wait)[0]:
            words = os.read(self.status_read, 64).decode("ascii", errors="replace").split()
            if len(words) == 2 and words[1].lstrip("-").isdigit():
                self.status = (words[0], int(words[1]))
        return self.status

    def output_full(self) -> bool:
        """Say whether the code printed so much that the output file reached its size limit."""
        return os.fstat(self.output.fileno()).st_size >= self.limits["file_size"]

    def read_output(self, limit: int) -> str:
        """Return what was printed since the last read, cut to `limit` bytes."""
        size = os.fstat(self.output.fileno()).st_size
        if size <= self.output_offset:
            return ""  # nothing new: most tests print nothing, and a read would find nothing
        data = os.pread(self.output.fileno(), limit + 1, self.output_offset)
        self.output_offset = max(size, self.output_offset)
        text = data[:limit].decode("utf-8", errors="replace")
        return text + ("\n[output cut]" if len(data) > limit else "")

    def close(self) -> None:
        """Kill the worker and everything it started, and remove its scratch folder and output."""
        # Without the seccomp filter a worker may have started processes that left its group.
        sweep = self.uid if self.isolation.seccomp is None else None
        self.server.kill(self.number, sweep)
        if self.group is not None:
            self.group.close()
        for fd in (self.request_write, self.reply_read, self.status_read):
            os.close(fd)
        if self.clock is not None:
            os.close(self.clock)
        self.output.close()
        if self.scratch is not None:
            remove_tree(self.scratch)
