"""The trusted side of the sandbox: start a worker, talk to it with time limits, read its output.

`worker_command` is the one place that builds the worker's command line, so a stronger sandbox
(bubblewrap, a container) can wrap it later without touching anything else.
"""

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MAX_REPLY_BYTES = 32 << 20
OUTPUT_FILE = "output.txt"
# Generous enough for any honest submission; they stop a runaway one from hurting the machine.
LIMITS = {
    "open_files": 64,
    "address_space": 2 << 30,
    "file_size": 64 << 20,
    "core_size": 0,
}


class SandboxProblem(Exception):
    """The sandbox could not give an answer; `status` is the test status to record."""

    status = "error"


class SandboxTimeout(SandboxProblem):
    """The submission's code ran past its time limit."""

    status = "timeout"


class SandboxCrash(SandboxProblem):
    """The worker process died while running the submission's code."""

    status = "crash"


def containment_command(scratch):
    """Return the bubblewrap prefix that hides the grader's files and processes from a worker.

    The whole file system is read-only except the worker's scratch folder; /tmp, where the
    grader keeps its job files and results, is an empty private folder; the worker sees only
    its own processes and has no network. So student code can neither read nor forge results.
    """
    return [
        "bwrap",
        "--ro-bind", "/", "/",
        "--tmpfs", tempfile.gettempdir(),
        "--bind", str(scratch), str(scratch),
        "--proc", "/proc",
        "--dev", "/dev",
        "--unshare-pid",
        "--unshare-net",
        "--die-with-parent",
        "--chdir", str(scratch),
    ]  # fmt: skip


def containment_available():
    """Say whether workers can run inside bubblewrap here (it needs user namespaces)."""
    grader_code = Path(__file__).resolve().parents[2]
    temporary = Path(tempfile.gettempdir()).resolve()
    # The private /tmp would hide the grader itself if it lived there.
    if temporary in (grader_code, *grader_code.parents) or shutil.which("bwrap") is None:
        return False
    scratch = Path(tempfile.mkdtemp(prefix="grader-probe-"))
    try:
        command = [*containment_command(scratch), sys.executable, "-c", "pass"]
        probe = subprocess.run(command, capture_output=True, timeout=10, check=False)
        return probe.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def worker_command(request_fd, reply_fd, scratch, contained):
    """Return the command line that starts a worker serving on the two descriptors."""
    prefix = containment_command(scratch) if contained else []
    return [
        *prefix,
        sys.executable,
        "-I",  # isolated: no user site, no PYTHON* variables, no script folder on sys.path
        "-X",
        "utf8",
        "-m",
        "grader.sandbox.worker",
        str(request_fd),
        str(reply_fd),
    ]


def worker_environment(scratch):
    """Return the small environment a worker runs with."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(scratch),
        "LANG": "C.UTF-8",
        "TMPDIR": str(scratch),
    }


class Worker:
    """One running worker process, with its pipes, scratch folder and captured output."""

    def __init__(self, cpu_seconds, contained):
        self.scratch = Path(tempfile.mkdtemp(prefix="grader-worker-"))
        request_read, self.request_write = os.pipe()
        self.reply_read, reply_write = os.pipe()
        self.output_path = self.scratch / OUTPUT_FILE
        self.output_offset = 0
        self.limits = dict(LIMITS, cpu_seconds=cpu_seconds)
        with open(self.output_path, "ab") as output:
            self.process = subprocess.Popen(
                worker_command(request_read, reply_write, self.scratch, contained),
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=output,
                cwd=self.scratch,
                env=worker_environment(self.scratch),
                pass_fds=(request_read, reply_write),
                start_new_session=True,  # its own process group, so a fork can be killed too
            )
        os.close(request_read)
        os.close(reply_write)
        self.buffer = b""

    def ask(self, message, deadline):
        """Send one message and return the reply, or raise a SandboxProblem."""
        try:
            os.write(self.request_write, (json.dumps(message) + "\n").encode("ascii"))
        except OSError:
            raise self._death() from None
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.reply_read], [], [], remaining)[0]:
                raise SandboxTimeout("the code ran past its time limit")
            chunk = os.read(self.reply_read, 1 << 20)
            if not chunk:
                raise self._death()
            self.buffer += chunk
            if len(self.buffer) > MAX_REPLY_BYTES:
                raise SandboxProblem("the worker's reply was too large")
        line, _, self.buffer = self.buffer.partition(b"\n")
        try:
            return json.loads(line)
        except ValueError:
            raise SandboxProblem("the worker's reply could not be read") from None

    def _death(self):
        """Return the problem that describes how the worker ended."""
        try:
            code = self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            code = None
        if code == -signal.SIGXFSZ:
            problem = SandboxCrash("the code printed more output than the limit allows")
            problem.status = "output_limit"
            return problem
        if code == -signal.SIGXCPU:
            return SandboxTimeout("the code used more processor time than the limit allows")
        return SandboxCrash(f"the process running the code ended (exit status {code})")

    def output_full(self):
        """Say whether the code printed so much that the output file reached its size limit."""
        try:
            return self.output_path.stat().st_size >= self.limits["file_size"]
        except OSError:
            return False

    def read_output(self, limit):
        """Return what was printed since the last read, cut to `limit` bytes."""
        try:
            with open(self.output_path, "rb") as output:
                output.seek(self.output_offset)
                data = output.read(limit + 1)
                self.output_offset = output.seek(0, os.SEEK_END)
        except OSError:
            return ""
        text = data[:limit].decode("utf-8", errors="replace")
        return text + ("\n[output cut]" if len(data) > limit else "")

    def close(self):
        """Kill the worker's whole process group and remove its scratch folder."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for fd in (self.request_write, self.reply_read):
            os.close(fd)
        shutil.rmtree(self.scratch, ignore_errors=True)
