"""The worker's end of the pipes to the trusted side: JSON lines, each reply signed with a key.

The trusted side writes requests to REQUEST_FD and reads replies from REPLY_FD; both numbers are
fixed, so nothing about the channel travels on the command line. A submission can still guess
them and write to the reply pipe, so every reply starts with the worker's key, sent in the
first request and held by the guard alone: a line without it is a forgery, and the trusted side
labels the test `forbidden`. Everything used here is bound before student code runs.
"""

from __future__ import annotations

import builtins
import os
from typing import TYPE_CHECKING, Any

from grader.sandbox.inside.picture import json_text
from grader.sandbox.inside.protocol import READ_BYTES

if TYPE_CHECKING:
    from grader.sandbox.inside.protocol import WorkerMessage

# Private built-ins: see grader/sandbox/inside/picture.py.
__builtins__ = dict(vars(builtins))  # type: ignore[assignment]

REQUEST_FD = 3
REPLY_FD = 4
# Written as is, so a worker out of memory can still say so.
MEMORY_REPLY = '{"status":"memory"}'

_read = os.read
_write = os.write
_scan = __import__("json").JSONDecoder().scan_once


def dumps(value: WorkerMessage) -> str:
    """Return a message's JSON text, written by the C encoder picture.py binds (ASCII only)."""
    return json_text(value)


class Channel:
    """Requests in, signed replies out, on the two fixed descriptors."""

    def __init__(self) -> None:
        # A bytearray grows in place and is searched only where it grew: a megabyte request
        # arrives in pipe-sized pieces, and re-copying or re-scanning it per piece is quadratic.
        self.buffer = bytearray()
        self.key = b""

    def receive(self) -> Any:
        """Return the next request, or None when the trusted side has closed the pipe.

        Which request it is (grader/sandbox/inside/protocol.py), the caller knows from where
        the exchange stands: the first is the Hello, a tool call's answer is a ToolAnswer.
        """
        end = self.buffer.find(b"\n")
        while end < 0:
            chunk = _read(REQUEST_FD, READ_BYTES)
            if not chunk:
                return None
            end = chunk.find(b"\n")
            if end >= 0:
                end += len(self.buffer)
            self.buffer += chunk
        text = self.buffer[:end].decode("utf-8")
        del self.buffer[: end + 1]
        return _scan(text, 0)[0]

    def send(self, message: WorkerMessage) -> None:
        """Write one reply, signed with the key."""
        self.send_text(dumps(message))

    def send_text(self, text: str) -> None:
        data = memoryview(self.key + b" " + text.encode("ascii") + b"\n")
        while data:  # a view, so a long reply is not copied again after each partial write
            data = data[_write(REPLY_FD, data) :]
