"""Seccomp programs for the worker, built with libseccomp's maintained binding (pyseccomp).

Two programs, both "allow everything except":

- `startup_program()` is applied by bubblewrap (`--seccomp FD`) before the worker's Python
  starts, so even the interpreter's start-up runs under it.
- `late_program()` the worker applies to itself once Python is up and before student code runs
  (`grader.sandbox.inside.syscalls.install`); it adds what Python's start-up still needs. In the
  fallback isolation, without bubblewrap, it is the only filter, so it repeats the first.

Either returns None when libseccomp cannot be loaded here; the run's summary then says so.
"""

import errno
import os
import tempfile
from pathlib import Path

# Kernel keyrings outlive a process and are shared by a user id: one student's worker could
# leave data there for the next.
KEYRINGS = ("keyctl", "add_key", "request_key")
# Reading or changing another process, or the kernel itself.
OTHER_PROCESSES = ("ptrace", "process_vm_readv", "process_vm_writev", "kcmp")
OTHER_PROCESSES += ("pidfd_getfd", "process_madvise", "move_pages", "migrate_pages")
KERNEL = ("bpf", "perf_event_open", "userfaultfd", "kexec_load", "kexec_file_load")
# Asynchronous I/O contexts come from a machine-wide pool (fs.aio-max-nr) every worker shares;
# secret memory is unmapped from the kernel's own view.
KERNEL += ("io_setup", "memfd_secret")
MODULES = ("init_module", "finit_module", "delete_module")
# New namespaces or mounts would undo what bubblewrap set up.
NAMESPACES = ("mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "personality")
# The newer mount calls do what mount does.
NAMESPACES += ("fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree")
NAMESPACES += ("mount_setattr",)
# clone can create namespaces as unshare does: refuse it only with one of these flags.
CLONE_NEW = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
CLONE_NEW += (0x00000080,)  # NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET; NEWTIME
# memfd memory is not address space, so RLIMIT_AS would not see it; sockets reach other
# processes (the network namespace has none, the fallback has no namespace at all).
ESCAPES = ("memfd_create", "socket", "socketpair", "io_uring_setup")
STARTUP_DENIED = KEYRINGS + OTHER_PROCESSES + KERNEL + MODULES + NAMESPACES + ESCAPES
# After start-up: no signal handler (it could run student code while the guard works), no
# thread or process (one could edit records while the guard reads them), no other program.
LATE_DENIED = ("rt_sigaction", "clone", "fork", "vfork", "execve", "execveat")


def startup_program() -> bytes | None:
    """Return the filter bubblewrap applies before Python starts, or None without libseccomp."""
    return _program(STARTUP_DENIED)


def late_program() -> bytes | None:
    """Return the filter the worker applies to itself before student code, or None."""
    return _program(STARTUP_DENIED + LATE_DENIED)


def _program(denied: tuple[str, ...]) -> bytes | None:
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError):
        return None
    try:
        rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        for name in denied:
            rules.add_rule(seccomp.ERRNO(errno.EPERM), name)
        # ENOSYS, not EPERM: the C library then falls back to clone, which the filter can read.
        rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
        if "clone" not in denied:
            for flag in CLONE_NEW:
                rules.add_rule(
                    seccomp.ERRNO(errno.EPERM),
                    "clone",
                    seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag),
                )
        with tempfile.TemporaryFile() as file:
            rules.export_bpf(file)
            file.seek(0)
            return file.read()
    except (OSError, RuntimeError, ValueError):
        return None


def write_program(program: bytes, folder: str | os.PathLike) -> Path:
    """Write `program` into `folder` for bubblewrap to read; return its path."""
    path = Path(folder) / "startup.bpf"
    path.write_bytes(program)
    path.chmod(0o644)
    return path


def open_program(path: str | os.PathLike) -> int:
    """Return a fresh descriptor reading `path` from its start (bubblewrap reads it once)."""
    return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
