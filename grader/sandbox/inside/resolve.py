"""Where a path really leads, found with functions bound before any student code runs.

os.path.realpath looks os.lstat and os.readlink up in the os module at every call: a submission
that replaced them could make its own link into /proc look like a plain file to the guard.
"""

from __future__ import annotations

import builtins
import os
import stat
from typing import Any

# Private built-ins: see grader/sandbox/inside/picture.py.
__builtins__ = dict(vars(builtins))  # type: ignore[assignment]

_lstat = os.lstat
_readlink = os.readlink
_getcwd = os.getcwd
_is_link = stat.S_ISLNK
_as_text = str.__str__  # a str subclass's exact text, without its own methods
_decode = bytes.decode
_split = str.split
_join = str.join
_starts = str.startswith
# More links than the kernel follows in one path (40): a path this gives up on cannot be opened.
_MOST_LINKS = 64


def path_text(path: Any) -> str | None:
    """Return a path given as str or bytes (or a subclass of either) as exact text, else None."""
    kind = type(path)  # not isinstance, which would ask the object's own __class__
    if issubclass(kind, str):
        return _as_text(path)
    if issubclass(kind, bytes):
        return _decode(path, "utf-8", "surrogateescape")  # os.fsdecode, in UTF-8 mode
    return None


def resolved(path: str) -> str | None:
    """Return the absolute path `path` leads to with every link followed, as the kernel would.

    A component that cannot be read (missing, not a directory) is kept as written, as
    os.path.realpath keeps it: opening the path fails there anyway. None past _MOST_LINKS.
    """
    if not _starts(path, "/"):
        path = _getcwd() + "/" + path
    done: list[str] = []
    waiting = _split(path, "/")[::-1]
    followed = 0
    while waiting:
        name = waiting.pop()
        if name in ("", "."):
            continue
        if name == "..":
            if done:
                done.pop()
            continue
        here = "/" + _join("/", [*done, name])
        try:
            link = _is_link(_lstat(here).st_mode)
        except (OSError, ValueError):
            link = False
        if not link:
            done.append(name)
            continue
        followed += 1
        if followed > _MOST_LINKS:
            return None
        target = _readlink(here)
        if _starts(target, "/"):
            done = []
        waiting.extend(_split(target, "/")[::-1])
    return "/" + _join("/", done)
