"""What shuts student code in on this host, said in one line for a run's summary."""

from grader.sandbox import cgroups, clock
from grader.sandbox.containment import Isolation
from grader.sandbox.inside import landlock


def describe(isolation: Isolation) -> str:
    """Say in one line what shuts student code in here, and what is missing: a run's summary.

    Each part states what holds on this host and nothing more; tests/hosts checks each against
    what an attack reaches there.
    """
    return "; ".join([*_walls(isolation), *_limits(isolation)]) + "."


def _walls(isolation: Isolation) -> list[str]:
    """What keeps student code from files, other students and the network."""
    parts = []
    if isolation.mode == "bubblewrap":
        parts.append(
            "bubblewrap (only the Python installation and the course code visible, read-only; "
            "a private scratch folder, /tmp, /dev/shm and IPC namespace of its own for each "
            "worker, of limited size; no network; own process namespace)"
        )
    else:
        parts.append("a separate process, without bubblewrap (not available here)")
    if isolation.landlock:
        parts.append(_landlock_words(isolation.landlock))
    elif isolation.mode != "bubblewrap":
        reach = (
            "read every file that all users may read"
            if isolation.uid is not None
            else ("read and change every file the grader's own user may")
        )
        parts.append(f"no Landlock (the kernel offers none): student code can {reach}")
    if isolation.uid is not None:
        parts.append("a user id of its own for each submission")
    else:
        parts.append("every worker runs as the grader's own user (it is not root)")
    if isolation.seccomp is not None:
        parts.append(
            "seccomp (no keyrings, ptrace, mounts, namespaces, sockets, memfd, System V IPC or "
            "message queues; no signals sent; no threads, processes, signal handlers or other "
            "programs)"
        )
    elif isolation.mode == "bubblewrap" or isolation.landlock >= landlock.NET_SINCE:
        parts.append("no seccomp filter (libseccomp is missing)")
    else:
        parts.append("no seccomp filter (libseccomp is missing): student code has the network")
    parts.append("a guard refusing the grader's frames, gc listings, trace hooks, ctypes and /proc")
    return parts


def _landlock_words(version: int) -> str:
    """What Landlock at ABI `version` holds for each worker."""
    words = (
        f"Landlock ABI {version} (reads only the system's libraries, the Python installation "
        "and the course code; changes only its own scratch folder"
    )
    if version >= landlock.NET_SINCE:
        words += "; no TCP connection or listening port"
    if version >= landlock.SCOPE_SINCE:
        words += "; no signal or abstract socket reaching past the worker"
    return words + ")"


def _limits(isolation: Isolation) -> list[str]:
    """What holds each worker to its memory, processes and time."""
    controllers = cgroups.available()
    if controllers:
        held = {"memory": "memory (shared memory too)", "pids": "processes", "cpu": "CPU share"}
        named = [words for key, words in held.items() if key in controllers]
        parts = [f"a cgroup v{cgroups.version()} per worker holding {', '.join(named)}"]
    else:
        parts = ["no cgroups (not writable here): memory is held by the address-space limit"]
    if set(controllers) & {"cpuacct"} or (controllers and cgroups.version() == 2):
        parts.append("time charged as the processor time each worker's cgroup counts")
    else:
        parts.append(
            "time charged as each worker process's own processor time (a process it starts "
            "counts once it ends)"
        )
    parts.append(
        "limits on processor time, memory, processes and output; waiting is not charged, and "
        f"a submission is stopped after {clock.WALL_FACTOR} times its time limit on the wall clock"
    )
    return parts
