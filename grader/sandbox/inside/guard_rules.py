"""What the guard refuses and what it checks: event tables, and the loop's tamper check.

Only the guard imports this module; like the rest of the guard's code it is never reachable
from student code.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

from grader.sandbox.inside.picture import entry

# Private built-ins: see grader/sandbox/inside/picture.py.
__builtins__ = dict(vars(builtins))  # type: ignore[assignment]

# What `snapshot` keeps of a module: its globals' keys and values, its private built-ins (None if
# they are not a dict) and their keys and values, as they were.
Snapshot = tuple[
    tuple[object, ...],
    tuple[object, ...],
    dict[str, Any] | None,
    tuple[object, ...],
    tuple[object, ...],
]

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
# The report of a call of invoke_tool made inside a tool (grader/sandbox/inside/nesting.py): it
# must come from the loop's `nest`, run by the stand-in it was ordered to.
NESTED = "grader.nested"
# The loop events at which the guard checks that the loop's module is as it was: those just
# before a reply (the loop binds what it uses as locals before student code runs, so a change
# cannot alter what it does before then; the change is labelled in that very reply). Checking
# at every event cost a sixth of a worker's time.
CHECKPOINTS = frozenset(("grader.loaded", "grader.checked", "grader.end"))


def reaches_frames(event: str, args: tuple[Any, ...]) -> bool:
    """Say whether one of FRAME_EVENTS reads a frame: sys._getframe, or a frame attribute."""
    if event == "sys._getframe":
        return True
    return type(args[1]) is str and args[1] in FRAME_ATTRIBUTES


def snapshot(namespace: dict[str, Any]) -> Snapshot:
    """Return what a module's globals and its private built-ins hold now, to compare with later."""
    private = entry(namespace, "__builtins__")
    if type(private) is not dict:
        return (tuple(dict.keys(namespace)), tuple(dict.values(namespace)), None, (), ())
    held = (tuple(dict.keys(private)), tuple(dict.values(private)))
    return (tuple(dict.keys(namespace)), tuple(dict.values(namespace)), private, *held)


def unchanged(namespace: dict[str, Any], snapshot: Snapshot) -> bool:
    """Say whether `namespace` and its built-ins hold the very keys and objects of `snapshot`.

    Compared by identity, in order, in C (this runs at every event of the loop): no key's or
    value's own methods run, and a key put back after it was taken out counts as a change.
    The namespace's values include its `__builtins__`, so that dict is still the one kept.
    """
    keys, values, private, private_keys, private_values = snapshot
    if private is None:
        return False
    return _holds(namespace, keys, values) and _holds(private, private_keys, private_values)


def _holds(mapping: dict[str, Any], keys: tuple[object, ...], values: tuple[object, ...]) -> bool:
    """Say whether `mapping` holds exactly `keys` and `values`, the very objects, in order."""
    return (
        dict.__len__(mapping) == len(keys)
        and all(map(_same, dict.keys(mapping), keys))
        and all(map(_same, dict.values(mapping), values))
    )


_same = operator.is_
