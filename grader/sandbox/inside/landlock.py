"""Landlock: the kernel's unprivileged file and network confinement, applied by each worker.

    abi()                                   # 0 where the kernel offers none, else its version
    restrict(read=[...], write=[...])       # for good, for this process and any it starts

No privilege is needed (Linux 5.13 and later), so it holds where bubblewrap cannot run: a
worker may then read only the folders in `read` (the Python installation, the course runtime,
the system's libraries) and change only those in `write` (its own scratch folder). It degrades
by the kernel's ABI version, each adding what it can hold: 2 moving files between folders, 3
truncating, 4 TCP connections and listening ports, 5 device ioctls, 6 signals and abstract Unix
sockets reaching past the worker itself. What is not handled at a version stays as it was, so
the run's summary names the version (grader.sandbox.wording.describe).

Three system calls through ctypes, standard library only: this module is part of what the
worker gets (the maintained bindings on PyPI would have to be copied into every worker).
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
from collections.abc import Sequence

# The same numbers on every architecture (Linux 5.13 gave new calls one table).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
# Each ABI version's file rights: version 1 has the first thirteen (reading, writing, making
# and removing files of every kind).
_FILE_RIGHTS = {1: (1 << 13) - 1, 2: REFER, 3: TRUNCATE, 5: IOCTL_DEV}
# What a right on a single file (not a folder) may name; others make the rule invalid.
_ON_A_FILE = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
READS = EXECUTE | READ_FILE | READ_DIR
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
NET_SINCE = 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1
SCOPE_SINCE = 6


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1  # the kernel's struct is packed: 12 bytes
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def abi() -> int:
    """Return the Landlock ABI version the kernel offers here, or 0 where it offers none."""
    version = _libc().syscall(
        ctypes.c_long(_CREATE_RULESET), None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION
    )
    return max(int(version), 0)


def handled_files(version: int) -> int:
    """Return every file right Landlock knows at `version`: all are refused unless allowed."""
    rights = 0
    for since, added in _FILE_RIGHTS.items():
        if version >= since:
            rights |= added
    return rights


def restrict(read: Sequence[str], write: Sequence[str]) -> int:
    """Confine this process for good: read `read`, change `write`, nothing else; no TCP.

    Return the ABI version applied. Raise OSError where Landlock is missing or refuses: the
    caller must not run student code then. Paths that do not exist are left out.
    """
    version = abi()
    if version < 1:
        raise OSError(errno.ENOSYS, "Landlock is not available")
    libc = _libc()
    handled = handled_files(version)
    attr = _RulesetAttr(handled, 0, 0)
    if version >= NET_SINCE:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP  # no rule: no port at all
    if version >= SCOPE_SINCE:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
    ruleset = libc.syscall(
        ctypes.c_long(_CREATE_RULESET), ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), 0
    )
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "Landlock refused the worker's ruleset")
    try:
        for paths, rights in ((read, READS), (write, handled)):
            for path in paths:
                _allow(libc, ruleset, path, rights & handled)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "the worker could not give up new privileges")
        if libc.syscall(ctypes.c_long(_RESTRICT_SELF), ctypes.c_int(ruleset), 0) != 0:
            raise OSError(ctypes.get_errno(), "Landlock refused to confine the worker")
    finally:
        os.close(ruleset)
    return version


def _allow(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    """Add one rule: `rights` beneath `path` (on `path` alone, if it is a file)."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= _ON_A_FILE
        rule = _PathBeneath(rights, fd)
        done = libc.syscall(
            ctypes.c_long(_ADD_RULE), ctypes.c_int(ruleset), _RULE_PATH_BENEATH,
            ctypes.byref(rule), 0,
        )  # fmt: skip
        if done != 0:
            raise OSError(ctypes.get_errno(), f"Landlock refused the rule for {path}")
    finally:
        os.close(fd)
