"""The sandboxed side: load one submission, then run scenarios against it on request.

Started by `grader.sandbox.containment.worker_command` with REQUEST_FD REPLY_FD [UID]: with a UID
(the grader runs as root) it first switches to that user for good. Requests and replies are
JSON lines on two private pipes, never on stdin or stdout, so whatever the student's code prints
cannot corrupt them. Everything used to read requests and write replies is bound before student
code runs, so a submission that patches `json`, `os` or `builtins` cannot change the report.

Messages:  {"op": "load", "units": [...], "limits": {...}}  ->  {"loaded": bool, ...}
           {"op": "run", "scenario": {...}}                 ->  {"observation": {...}} or {"error"}
Any request whose handling ran out of memory is answered {"status": "memory"}.
"""

import builtins
import contextlib
import json
import os
import resource
import sys
import types
from _json import encode_basestring_ascii

from course.assemble import run_cells
from grader.model import CodeUnit
from grader.sandbox.observe import run_scenario
from grader.sandbox.values import type_name

# Built before student code runs; see grader/sandbox/values.py for why built-ins are copied.
__builtins__ = dict(vars(builtins))

_scan = json.JSONDecoder().scan_once
_read = os.read
_write = os.write
_stdout = sys.stdout
_stderr = sys.stderr
_LIMITS = {
    "cpu_seconds": resource.RLIMIT_CPU,
    "open_files": resource.RLIMIT_NOFILE,
    "address_space": resource.RLIMIT_AS,
    "file_size": resource.RLIMIT_FSIZE,
    "core_size": resource.RLIMIT_CORE,
    "processes": resource.RLIMIT_NPROC,
}
# Written as is, so a worker out of memory can still say so.
_MEMORY_REPLY = b'{"status":"memory"}\n'
# How course.assemble.run_cells words a cell that stopped with a MemoryError.
_MEMORY_PROBLEM = " stopped with MemoryError "
# Modules student code commonly imports, loaded before switching users when the new user cannot
# read the Python installation (the fallback, with Python installed in root's home folder).
_PRELOAD = [
    "abc",
    "collections",
    "copy",
    "dataclasses",
    "decimal",
    "enum",
    "functools",
    "itertools",
    "json",
    "logging",
    "math",
    "numbers",
    "operator",
    "re",
    "string",
    "textwrap",
    "traceback",
    "typing",
    "warnings",
]


def dumps(value):
    """Return JSON text for plain data (dict, list, str, int, bool, None), ASCII only."""
    kind = type(value)
    if kind is str:
        return encode_basestring_ascii(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return int.__repr__(value)
    if kind is list:
        return "[" + ",".join([dumps(item) for item in value]) + "]"
    if kind is dict:
        pairs = [encode_basestring_ascii(key) + ":" + dumps(item) for key, item in value.items()]
        return "{" + ",".join(pairs) + "}"
    raise TypeError(f"cannot report a {type_name(kind)}")


class Channel:
    """JSON lines over two pipe descriptors, read and written without any patchable helper."""

    def __init__(self, request_fd, reply_fd):
        self.request_fd = request_fd
        self.reply_fd = reply_fd
        self.buffer = b""

    def receive(self):
        """Return the next message, or None when the trusted side has closed the pipe."""
        while b"\n" not in self.buffer:
            chunk = _read(self.request_fd, 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return _scan(line.decode("utf-8"), 0)[0]

    def send(self, message):
        """Write one message, after flushing what the student printed so far."""
        for stream in (sys.stdout, sys.stderr, _stdout, _stderr):
            # A broken or replaced stream must not stop the report.
            with contextlib.suppress(BaseException):
                stream.flush()
        data = (dumps(message) + "\n").encode("ascii")
        while data:
            data = data[_write(self.reply_fd, data) :]


def apply_limits(limits):
    """Set the resource limits the trusted side asked for, before any student code runs."""
    for name, amount in limits.items():
        resource.setrlimit(_LIMITS[name], (amount, amount))


def load(units):
    """Run the submission's code units; return (invoke_tool or None, reply; None for memory)."""
    module = types.ModuleType("submission")
    sys.modules["submission"] = module
    cells = [CodeUnit(unit["label"], unit["filename"], unit["source"]) for unit in units]
    try:
        problems = list(run_cells(cells, module.__dict__))
    except MemoryError:
        raise
    except BaseException as error:  # sys.exit at import is the student's problem
        reason = (
            f"Your code stopped with {type_name(type(error))} while it was being loaded, "
            "so none of it could be tested. Remove calls such as sys.exit() or input() "
            "from the top level of your code."
        )
        return None, {"loaded": False, "reason": reason}
    invoke_tool = module.__dict__.get("invoke_tool")
    if not callable(invoke_tool) and any(_MEMORY_PROBLEM in problem for problem in problems):
        # A cell ran out of memory before it defined invoke_tool: that is the label to give.
        return None, None
    if not callable(invoke_tool):
        problems.append(
            "No function named invoke_tool was defined, so there was nothing to test. "
            "Check its name and that the cell or file that defines it runs without errors."
        )
        return None, {"loaded": False, "reason": " ".join(problems)}
    return invoke_tool, {"loaded": True, "problems": problems}


def hide_grader_modules():
    """Take the grader's modules out of sys.modules before any student code runs.

    The worker keeps using the objects it already holds; a submission that looks for them in
    sys.modules to patch them finds nothing, and one that imports them gets fresh copies that
    the worker never uses.
    """
    for name in list(sys.modules):
        if name == "grader" or name.startswith("grader."):
            del sys.modules[name]


def serve(channel):
    """Answer requests until the trusted side closes the pipe."""
    hide_grader_modules()
    invoke_tool = None
    while (message := channel.receive()) is not None:
        try:
            invoke_tool, reply = answer(message, invoke_tool)
        except MemoryError:
            # Let go of whatever filled the memory before saying anything at all.
            reply = None
        if reply is None:
            _write(channel.reply_fd, _MEMORY_REPLY)
        else:
            channel.send(reply)


def answer(message, invoke_tool):
    """Handle one request; return the (maybe new) invoke_tool and the reply, None for memory."""
    if message["op"] == "load":
        apply_limits(message.get("limits", {}))
        return load(message["units"])
    if invoke_tool is None:
        return None, {"error": "no submission is loaded"}
    try:
        observation = run_scenario(message["scenario"], invoke_tool)
    except MemoryError:
        return invoke_tool, None
    except BaseException as error:  # report it, never die quietly
        return invoke_tool, {"error": f"the worker could not observe: {type_name(type(error))}"}
    if observation["raised"] is not None and observation["raised"]["type"] == "MemoryError":
        return invoke_tool, None
    return invoke_tool, {"observation": observation}


def become(uid):
    """Switch to `uid` for good, giving up root and every supplementary group."""
    if not _readable_by_everyone(sys.base_prefix):
        for name in _PRELOAD:
            __import__(name)
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise SystemExit("the worker could not switch to its own user")


def _readable_by_everyone(folder):
    """Say whether every user can reach `folder` (each folder on the way lets others in)."""
    path = os.path.realpath(folder)
    while True:
        if not os.stat(path).st_mode & 0o001:
            return False
        if path == "/":
            return True
        path = os.path.dirname(path)


def main(argv):
    """Serve on the descriptors named on the command line, as the user named there if any."""
    if len(argv) > 3:
        become(int(argv[3]))
    serve(Channel(int(argv[1]), int(argv[2])))


if __name__ == "__main__":
    main(sys.argv)
