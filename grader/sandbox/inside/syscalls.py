"""Apply a seccomp program to the worker itself, before any student code runs (stdlib only)."""

from __future__ import annotations

import ctypes

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2


class _Instruction(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_ushort),
        ("jt", ctypes.c_ubyte),
        ("jf", ctypes.c_ubyte),
        ("k", ctypes.c_uint),
    ]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Instruction))]


def install(program: bytes) -> None:
    """Apply the BPF `program` (bytes of 8-byte instructions) to this process, for good."""
    count = len(program) // ctypes.sizeof(_Instruction)
    instructions = (_Instruction * count).from_buffer_copy(program)
    described = _Program(count, instructions)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "the worker could not give up new privileges")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(described), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "the kernel refused the worker's seccomp filter")


# What a worker with private mounts works in: its own tmpfs, as are /tmp and /dev/shm.
SCRATCH = "/scratch"
PRIVATE_MOUNTS = (("/tmp", 16 << 20), ("/dev/shm", 16 << 20), (SCRATCH, 64 << 20))
PR_SET_PDEATHSIG = 1
CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 2, 4, 1 << 14, 1 << 18
_CAPABILITY_VERSION_3 = 0x20080522
PR_CAPBSET_DROP = 24
_LAST_CAPABILITY = 63


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        raise OSError(ctypes.get_errno(), what)


def die_with_parent() -> None:
    """Have the kernel kill this process when its parent (the fork server) dies."""
    _check(_libc().prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0), "the worker could not follow its parent")


def private_mounts() -> None:
    """Give this process its own mounts and IPC: fresh, size-limited tmpfs at PRIVATE_MOUNTS.

    Nothing a student leaves there outlives the worker: the mounts go with its namespace, so
    there is nothing to clean up and no student sees another's files or shared memory.
    """
    libc = _libc()
    _check(libc.unshare(CLONE_NEWNS | CLONE_NEWIPC), "the worker could not get its own mounts")
    _check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "private mounts")
    for folder, size in PRIVATE_MOUNTS:
        options = f"size={size},mode=1777".encode("ascii")
        flags = MS_NOSUID | MS_NODEV
        _check(libc.mount(b"tmpfs", folder.encode(), b"tmpfs", flags, options), f"tmpfs {folder}")


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def drop_capabilities() -> None:
    """Give up every capability, for good: a worker that stays uid 0 (in a user namespace)."""
    libc = _libc()
    for capability in range(_LAST_CAPABILITY + 1):
        libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)  # unknown numbers fail harmlessly
    header = _CapHeader(_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    _check(libc.capset(ctypes.byref(header), data), "the worker could not give up capabilities")
