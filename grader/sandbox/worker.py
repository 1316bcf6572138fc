"""The sandboxed side: load one submission, then run scenarios against it on request.

Run as `python -I -X utf8 -m grader.sandbox.worker REQUEST_FD REPLY_FD`. Requests and replies are
JSON lines on two private pipes, never on stdin or stdout, so whatever the student's code prints
cannot corrupt them. Everything used to read requests and write replies is bound before student
code runs, so a submission that patches `json`, `os` or `builtins` cannot change the report.

Messages:  {"op": "load", "units": [...], "limits": {...}}  ->  {"loaded": bool, ...}
           {"op": "run", "scenario": {...}}                 ->  {"observation": {...}} or {"error"}
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
}


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
    """Run the submission's code units; return (invoke_tool or None, reply)."""
    module = types.ModuleType("submission")
    sys.modules["submission"] = module
    cells = [CodeUnit(unit["label"], unit["filename"], unit["source"]) for unit in units]
    try:
        problems = list(run_cells(cells, module.__dict__))
    except BaseException as error:  # sys.exit at import is the student's problem
        reason = (
            f"Your code stopped with {type_name(type(error))} while it was being loaded, "
            "so none of it could be tested. Remove calls such as sys.exit() or input() "
            "from the top level of your code."
        )
        return None, {"loaded": False, "reason": reason}
    invoke_tool = module.__dict__.get("invoke_tool")
    if not callable(invoke_tool):
        problems.append(
            "No function named invoke_tool was defined, so there was nothing to test. "
            "Check its name and that the cell or file that defines it runs without errors."
        )
        return None, {"loaded": False, "reason": " ".join(problems)}
    return invoke_tool, {"loaded": True, "problems": problems}


def serve(channel):
    """Answer requests until the trusted side closes the pipe."""
    invoke_tool = None
    while (message := channel.receive()) is not None:
        if message["op"] == "load":
            apply_limits(message.get("limits", {}))
            invoke_tool, reply = load(message["units"])
        elif invoke_tool is None:
            reply = {"error": "no submission is loaded"}
        else:
            try:
                reply = {"observation": run_scenario(message["scenario"], invoke_tool)}
            except BaseException as error:  # report it, never die quietly
                reply = {"error": f"the worker could not observe: {type_name(type(error))}"}
        channel.send(reply)


def main(argv):
    """Serve on the descriptors named on the command line."""
    serve(Channel(int(argv[1]), int(argv[2])))


if __name__ == "__main__":
    main(sys.argv)
