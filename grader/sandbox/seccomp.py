"""The seccomp program of a worker, built with libseccomp's maintained binding (pyseccomp).

One "allow everything except" program, which each worker applies to itself once it is set up
and before any student code runs (`grader.sandbox.inside.syscalls.install`): no keyrings, no
reaching other processes or the kernel, no new namespaces or mounts, no sockets or memfd, and
no signal handler, thread, process or other program. The fork server that starts workers runs
without it, for it must fork and give each worker its own mounts; it never runs student code.

`worker_program()` returns None when libseccomp cannot be loaded here; the run's summary then
says so.
"""

import errno
import tempfile

# Kernel keyrings outlive a process and are shared by a user id: one student's worker could
# leave data there for the next.
KEYRINGS = ("keyctl", "add_key", "request_key")
# Reading or changing another process, or the kernel itself.
OTHER_PROCESSES: tuple[str, ...] = ("ptrace", "process_vm_readv", "process_vm_writev", "kcmp")
OTHER_PROCESSES += ("pidfd_getfd", "process_madvise", "move_pages", "migrate_pages")
KERNEL: tuple[str, ...] = ("bpf", "perf_event_open", "userfaultfd", "kexec_load", "kexec_file_load")
# Asynchronous I/O contexts come from a machine-wide pool (fs.aio-max-nr) every worker shares;
# secret memory is unmapped from the kernel's own view.
KERNEL += ("io_setup", "memfd_secret")
MODULES = ("init_module", "finit_module", "delete_module")
# New namespaces or mounts would undo what the sandbox set up.
NAMESPACES: tuple[str, ...] = (
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "personality",
)
# The newer mount calls do what mount does.
NAMESPACES += ("fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree")
NAMESPACES += ("mount_setattr",)
# memfd memory is not address space, so RLIMIT_AS would not see it; sockets reach other
# processes (the network namespace has none, the fallback has no namespace at all).
ESCAPES = ("memfd_create", "socket", "socketpair", "io_uring_setup")
# System V IPC and POSIX message queues outlive a worker and are shared by everyone in an IPC
# namespace: without bubblewrap (which gives each worker its own), one student's worker could
# leave data there for the next. Shared memory files in /dev/shm are Landlock's or bubblewrap's.
IPC: tuple[str, ...] = ("shmget", "shmat", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl")
IPC += ("semget", "semop", "semtimedop", "semctl", "mq_open", "mq_unlink", "mq_timedsend")
IPC += ("mq_timedreceive", "mq_notify", "mq_getsetattr")
# Signals: a worker has no process of its own to signal (it may fork none), and without root
# every other process of the grader's user, another student's worker or the grader itself,
# would be in reach. A worker that aborts itself still ends (the C library falls back to a
# fault). Its fork server signals it, unfiltered.
SIGNALS: tuple[str, ...] = (
    "kill",
    "tkill",
    "tgkill",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "pidfd_send_signal",
)
SIGNALS += ("pidfd_open",)
# No signal handler (it could run student code while the guard works), no thread or process
# (one could edit records while the guard reads them), no other program.
RUNNING = ("rt_sigaction", "clone", "fork", "vfork", "execve", "execveat")
DENIED = KEYRINGS + OTHER_PROCESSES + KERNEL + MODULES + NAMESPACES + ESCAPES + IPC + SIGNALS
DENIED += RUNNING


def worker_program() -> bytes | None:
    """Return the filter a worker applies to itself before student code, or None."""
    return _program(DENIED)


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
        with tempfile.TemporaryFile() as file:
            rules.export_bpf(file)
            file.seek(0)
            return file.read()
    except (OSError, RuntimeError, ValueError):
        return None
