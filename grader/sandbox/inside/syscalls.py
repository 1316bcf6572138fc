"""Apply a seccomp program to the worker itself, before any student code runs (stdlib only)."""

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


def install(program):
    """Apply the BPF `program` (bytes of 8-byte instructions) to this process, for good."""
    count = len(program) // ctypes.sizeof(_Instruction)
    instructions = (_Instruction * count).from_buffer_copy(program)
    described = _Program(count, instructions)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "the worker could not give up new privileges")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(described), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "the kernel refused the worker's seccomp filter")
