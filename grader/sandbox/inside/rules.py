"""What the guard refuses and what it checks: event tables, and the loop's tamper check.

Only the guard imports this module; like the rest of the guard's code it is never reachable
from student code.
"""

from __future__ import annotations

import builtins
from typing import Any

from grader.sandbox.inside.picture import entry

# Private built-ins: see grader/sandbox/inside/picture.py.
__builtins__ = dict(vars(builtins))  # type: ignore[assignment]

# What `snapshot` keeps of a module: its globals and its private built-ins, as they were.
Snapshot = tuple[dict[str, Any], dict[str, Any]]

# Events refused whenever student code raises them, with how the message names them.
REFUSED = {
    "sys._current_frames": "sys._current_frames()",
    "sys.setprofile": "sys.setprofile()",
    "sys.settrace": "sys.settrace()",
    "sys.addaudithook": "sys.addaudithook()",
    "gc.get_objects": "gc.get_objects()",
    "gc.get_referrers": "gc.get_referrers()",
    "gc.get_referents": "gc.get_referents()",
    "os.fork": "os.fork()",
    "os.forkpty": "os.forkpty()",
    "os.exec": "running another program",
    "os.posix_spawn": "running another program",
    "os.spawn": "running another program",
    "os.system": "os.system()",
    "subprocess.Popen": "running another program",
}
# Every event the guard looks at besides its own ("ctypes." ones too).
WATCHED = frozenset((*REFUSED, "import", "object.__getattr__", "open", "os.listdir", "os.scandir"))
# Imported by the guard to apply its seccomp filter, then taken out of sys.modules: importing
# them again is refused, so student code never gets a working ctypes.
CTYPES = frozenset(("ctypes", "_ctypes"))
# Attributes that lead from an object to a frame: refused when the frame is the guard's.
# (f_back and f_globals raise no event; the loop's frames below student code hold nothing.)
FRAME_ATTRIBUTES = frozenset(("tb_frame", "gi_frame", "cr_frame", "ag_frame"))
# The events that read a frame: refused while the guard is busy, unless the guard reads it.
FRAME_EVENTS = frozenset(("sys._getframe", "object.__getattr__"))
PROC = ("/proc", "/dev/fd")
# The events the loop sends; each must come from the loop's own frame.
LOOP_EVENTS = frozenset(
    (
        "grader.next",
        "grader.loaded",
        "grader.checked",
        "grader.begin",
        "grader.returned",
        "grader.raised",
        "grader.end",
    )
)


def reaches_frames(event: str, args: tuple[Any, ...]) -> bool:
    """Say whether one of FRAME_EVENTS reads a frame: sys._getframe, or a frame attribute."""
    if event == "sys._getframe":
        return True
    return type(args[1]) is str and args[1] in FRAME_ATTRIBUTES


def snapshot(namespace: dict[str, Any]) -> Snapshot:
    """Return copies of a module's globals and of its private built-ins, to compare with later."""
    builtins_copy = entry(namespace, "__builtins__")
    return dict(namespace), dict(builtins_copy) if type(builtins_copy) is dict else {}


def unchanged(namespace: dict[str, Any], snapshot: Snapshot) -> bool:
    """Say whether `namespace` (and its built-ins) hold the very objects of `snapshot`.

    Exact-type checks and lookups of exact `str` keys only: a key a submission added could be a
    str subclass whose `__eq__` would run inside the guard.
    """
    names, builtins_copy = snapshot
    current = entry(namespace, "__builtins__")
    if type(current) is not dict:
        return False
    for now, before in ((namespace, names), (current, builtins_copy)):
        if len(now) != len(before):
            return False
        for key, value in dict.items(now):
            if type(key) is not str or dict.get(before, key, _MISSING) is not value:
                return False
    return True


_MISSING = object()
