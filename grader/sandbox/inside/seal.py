"""Shut the worker in before any student code runs: descriptors, user, limits, seccomp, threads.

Called once by `guard.install` with the first request. Everything here happens while only the
grader's code has run, so it may import what it needs (the new user may not be able to read the
Python installation afterwards).
"""

from __future__ import annotations

import os
import resource
import sys
from typing import TYPE_CHECKING, Any

from grader.sandbox.inside import syscalls
from grader.sandbox.inside.channel import REPLY_FD, REQUEST_FD
from grader.sandbox.inside.loop import refuse

if TYPE_CHECKING:
    from grader.sandbox.inside.protocol import Hello

_LIMITS = {
    "cpu_seconds": resource.RLIMIT_CPU,
    "open_files": resource.RLIMIT_NOFILE,
    "address_space": resource.RLIMIT_AS,
    "file_size": resource.RLIMIT_FSIZE,
    "core_size": resource.RLIMIT_CORE,
    "processes": resource.RLIMIT_NPROC,
}
# Loaded before switching users when the new user cannot read the Python installation.
_PRELOAD = (
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
)


def shut_in(hello: Hello) -> None:
    """Apply what the first request asks for: the user to become, limits, the seccomp filter."""
    _keep_only_the_channel()
    _refuse_threads_and_signals()
    uid = hello.get("uid")
    if uid is not None:
        parent = os.getppid()
        _become(uid)  # switching from root gives up every capability
        # ...and the kernel's promise to kill it with its parent: ask again.
        syscalls.die_with_parent()
        if os.getppid() != parent:  # the parent died before the promise was renewed
            raise SystemExit("the worker's parent has gone")
    else:
        syscalls.drop_capabilities()  # root of a user namespace, or already without any
    for name, amount in hello.get("limits", {}).items():
        resource.setrlimit(_LIMITS[name], (amount, amount))
    if hello.get("seccomp"):
        syscalls.install(bytes.fromhex(hello["seccomp"]))


def _keep_only_the_channel() -> None:
    """Close every other inherited descriptor and keep the channel's from later programs."""
    os.closerange(REPLY_FD + 1, 1024)
    for fd in (REQUEST_FD, REPLY_FD):
        os.set_inheritable(fd, False)


def _refuse_threads_and_signals() -> None:
    """Replace the functions that start threads or install signal handlers with refusals.

    A signal handler or a thread could run student code while the guard works. The late seccomp
    filter refuses them in the kernel too; these stand-ins give the student a plain message.
    """
    import _thread
    import signal
    import threading

    refused_thread = refuse("starting a thread")
    for module in (_thread, threading):
        for name in ("start_new_thread", "start_new", "_start_new_thread"):
            if hasattr(module, name):
                setattr(module, name, refused_thread)
    refused_signal = refuse("installing a signal handler")
    # Any to mypy, which cannot tell that each of these modules has a `signal` to replace.
    signal_modules: tuple[Any, ...] = (signal, sys.modules.get("_signal"))
    for signals in signal_modules:
        if signals is not None:
            signals.signal = refused_signal


def hide_grader_modules() -> None:
    """Take the grader's modules out of sys.modules: importing them again gives unused copies.

    ctypes goes too: the guard imported it for the seccomp filter, and refuses it from now on.
    """
    for name in list(sys.modules):
        if name.split(".")[0] in ("grader", "ctypes", "_ctypes"):
            del sys.modules[name]


def _become(uid: int) -> None:
    """Switch to `uid` for good, giving up root and every supplementary group."""
    if not _readable_by_everyone(sys.base_prefix):
        for name in _PRELOAD:
            __import__(name)
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise SystemExit("the worker could not switch to its own user")


def _readable_by_everyone(folder: str) -> bool:
    """Say whether every user can reach `folder` (each folder on the way lets others in)."""
    path = os.path.realpath(folder)
    while True:
        if not os.stat(path).st_mode & 0o001:
            return False
        if path == "/":
            return True
        path = os.path.dirname(path)
