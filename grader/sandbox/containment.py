"""How a worker is shut in: a private runtime folder, bubblewrap, an unprivileged user.

    isolation = choose_isolation(runtime_folder, "auto")   # once per job
    launch = launch(isolation, scratch, (request_fd, reply_fd))  # per worker

A worker needs only the Python installation, the supplied course code and the few grader modules
it imports. `prepare_runtime` copies those modules into a fresh folder, so the worker never sees
the repository: not the hidden tests, the solutions, the fixtures, nor any job or result file.

Under bubblewrap ("bubblewrap" mode) the worker's whole file system is built from read-only binds
of the system folders, the Python installation and that runtime folder, plus its own writable
scratch folder and a small private /tmp; it has no network, its own process, IPC and host-name
namespaces, and no capabilities. Where bubblewrap or the namespaces it needs are missing
("process" mode), the worker is a plain child process. In both modes, when the grader runs as
root, the worker switches to a user id of its own before any student code runs, and resource
limits (memory, processor time, processes, file size, open files) hold it in.
"""

import compileall
import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.sandbox import cgroups, syscalls

PROJECT = Path(__file__).resolve().parents[2]
# Everything the worker imports from the project; all of it is safe for a student to read.
# The one list of what the sandbox's copy holds: the supplied course code student cells run
# with, and the code that runs beside them. The Gradescope bundle and the resume fingerprint
# are built from it too.
COURSE_RUNTIME = ("course/__init__.py", "course/assemble.py", "course/supplied.py")
RUNTIME_FILES = (*COURSE_RUNTIME, "grader/__init__.py", "grader/sandbox/__init__.py")
RUNTIME_FOLDERS = ("grader/sandbox/inside",)
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64")
PRIVATE_TMP_BYTES = 16 << 20
# The worker's working folder under bubblewrap: a tmpfs of its own, so nothing a student writes
# there reaches the host's disk, and nothing is left to remove when the worker ends.
SCRATCH = "/scratch"
SCRATCH_BYTES = 64 << 20
# Where the worker finds its channel; bubblewrap reads its seccomp program from FILTER_FD.
CHANNEL_FDS = (3, 4)
FILTER_FD = 5
# Where a bubblewrapped worker sees the runtime folder: one fixed place, so the tracebacks a
# student's output may show are the same in every job.
RUNTIME_MOUNT = "/grader-runtime"
# Each submission's workers run as a user id of their own: the job's block of UIDS_PER_JOB ids
# starts at UID_BASE plus a slot chosen by the job's process id, so jobs alive at once do not
# share ids, and one student's processes, keys or files never meet another's.
UID_BASE = 200_000
UIDS_PER_JOB = 1 << 16
JOB_SLOTS = 1 << 14
# Setting GRADER_ISOLATION=process in the grader's environment forces the fallback.
ISOLATION_VARIABLE = "GRADER_ISOLATION"


@dataclass(frozen=True)
class Isolation:
    """How this job's workers run: the mode, the user id to switch to, and the runtime folder."""

    mode: str  # "bubblewrap" or "process"
    runtime: str  # folder holding the only project modules a worker can import
    uid: int | None = None  # first id of the job's block; None when the grader is not root
    startup_filter: str | None = None  # seccomp program file bubblewrap applies, if any
    late_filter: bytes | None = None  # seccomp program the worker applies to itself, if any

    def uid_for(self, serial):
        """Return the user id of the `serial`-th submission's workers, or None."""
        return None if self.uid is None else self.uid + serial % UIDS_PER_JOB


def prepare_runtime(folder):
    """Copy the modules a worker imports into `folder`/runtime, readable by everyone; return it."""
    runtime = Path(folder) / "runtime"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in RUNTIME_FOLDERS:
        shutil.copytree(PROJECT / name, runtime / name, ignore=ignore)
    for name in RUNTIME_FILES:
        (runtime / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PROJECT / name, runtime / name)
    # Compiled once here, so that no worker recompiles the runtime from source at every start
    # (it cannot write its own bytecode: the folder is read-only to it). Only what was copied is
    # compiled, from the copies themselves.
    compileall.compile_dir(runtime, quiet=1, workers=1)
    for place in (Path(folder), *runtime.rglob("*"), runtime):
        place.chmod(0o755 if place.is_dir() else 0o644)
    return runtime


def worker_uid():
    """Return the user id this job's workers switch to, or None when the grader is not root."""
    if os.geteuid() != 0:
        return None
    return UID_BASE + (os.getpid() % JOB_SLOTS) * UIDS_PER_JOB


def choose_isolation(runtime, wanted="auto"):
    """Return the strongest isolation that works here; `wanted="process"` forces the fallback.

    `wanted="bubblewrap"` requires bubblewrap: RuntimeError, in one line, where it cannot run
    (or GRADER_ISOLATION=process forbids it), never a silent fallback.
    """
    uid = worker_uid()
    late = syscalls.late_program()
    forced = os.environ.get(ISOLATION_VARIABLE) == "process" or wanted == "process"
    startup = syscalls.startup_program()
    program = None
    if startup is not None:
        program = str(syscalls.write_program(startup, Path(runtime).parent))
    contained = Isolation("bubblewrap", str(runtime), uid, program, late)
    if not forced and bubblewrap_works(contained):
        return contained
    if wanted == "bubblewrap":
        why = f"{ISOLATION_VARIABLE}=process is set" if forced else "it cannot run here"
        raise RuntimeError(
            f"bubblewrap is required but {why} (is it installed, does it accept the sandbox's "
            "options, may it make namespaces?)"
        )
    return Isolation("process", str(runtime), uid, None, late)


def isolation_here(wanted="auto"):
    """Return the isolation a job would choose here (its runtime folder is already gone)."""
    with tempfile.TemporaryDirectory(prefix="grader-runtime-") as folder:
        return choose_isolation(prepare_runtime(folder), wanted)


def containment_available(wanted="auto"):
    """Say whether workers would run inside bubblewrap here."""
    return isolation_here(wanted).mode == "bubblewrap"


def describe(isolation):
    """Say in one line what shuts student code in, and what is missing: a run's summary."""
    if isolation.mode == "bubblewrap":
        parts = [
            "bubblewrap (only the Python installation and the course code visible, read-only; "
            "a private scratch folder, /tmp and /dev/shm of limited size; no network; own "
            "process namespace)"
        ]
    else:
        parts = [
            "a separate process, without bubblewrap (not available here): student code can "
            "read every file that all users may read and has the network"
        ]
    if isolation.uid is not None:
        parts.append("a user id of its own for each submission")
    controllers = cgroups.available()
    if controllers:
        parts.append("a cgroup per worker holding memory (shared memory too), processes and CPU")
    else:
        parts.append("no cgroups (not writable here): memory is held by the address-space limit")
    if "cpuacct" in controllers:
        parts.append(
            "time charged as each submission's own processor time (wall time when it waits)"
        )
    else:
        parts.append("time limits on the wall clock (a busy machine slows every submission)")
    if isolation.late_filter is not None:
        parts.append(
            "seccomp (no keyrings, ptrace, mounts, namespaces, sockets or memfd; no threads, "
            "processes, signal handlers or other programs once Python has started)"
        )
    else:
        parts.append("no seccomp filter (libseccomp is missing)")
    parts.append("a guard refusing the grader's frames, gc listings, trace hooks, ctypes and /proc")
    parts.append("limits on time, memory, processes and output")
    return "; ".join(parts) + "."


def bubblewrap_works(isolation):
    """Say whether a worker can start inside bubblewrap here (it needs namespaces)."""
    if shutil.which("bwrap") is None:
        return False
    launch = Launch.of(isolation, None, ())
    command = [*launch.command[: launch.command.index(python_executable())], python_executable()]
    try:
        probe = subprocess.run(
            [*command, "-I", "-c", "pass"],
            capture_output=True,
            timeout=10,
            check=False,
            close_fds=False,
            preexec_fn=launch.prepare,
        )
        return probe.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        launch.close()


def python_executable():
    """Return the real interpreter behind this (perhaps virtual) environment."""
    return os.path.realpath(sys.executable)


def python_installation():
    """Return the folder of the Python installation the interpreter lives in."""
    return Path(os.path.realpath(sys.base_prefix))


def bubblewrap_prefix(isolation):
    """Return the bubblewrap command that shuts a worker in (see the module docstring)."""
    command = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    command += ["--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    command += ["--cap-drop", "ALL"]
    if isolation.uid is not None:
        # Only to switch to the worker's own user; switching from root clears them again.
        command += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    if isolation.startup_filter is not None:
        command += ["--seccomp", str(FILTER_FD)]
    command += _system_binds()
    command += _readable_bind(python_installation())
    command += ["--proc", "/proc", "--dev", "/dev"]
    for folder, size in (("/tmp", PRIVATE_TMP_BYTES), ("/dev/shm", PRIVATE_TMP_BYTES)):
        command += ["--perms", "1777", "--size", str(size), "--tmpfs", folder]
    command += ["--perms", "1777", "--size", str(SCRATCH_BYTES), "--tmpfs", SCRATCH]
    command += ["--ro-bind", isolation.runtime, RUNTIME_MOUNT, "--chdir", SCRATCH]
    return command


def _system_binds():
    """Bind the system folders read-only, keeping the symbolic links of a merged /usr."""
    command = []
    for name in SYSTEM_FOLDERS:
        if os.path.islink(name):
            command += ["--symlink", os.readlink(name), name]
        elif os.path.isdir(name):
            command += ["--ro-bind", name, name]
    return command


def _readable_bind(folder):
    """Bind `folder` read-only, its parent folders open to every user (even /root's)."""
    return [*_open_parents(folder), "--ro-bind", str(folder), str(folder)]


def _open_parents(folder):
    """Create the parents of `folder` that the sandbox lacks, open to every user."""
    command = []
    for parent in reversed(folder.parents):
        if parent not in (Path("/"), Path("/tmp")) and not _in_system_folder(parent):
            command += ["--perms", "0755", "--dir", str(parent)]
    return command


def _in_system_folder(path):
    return any(path == Path(name) or Path(name) in path.parents for name in SYSTEM_FOLDERS)


def make_scratch(isolation, uid):
    """Return a host folder for the worker to work in, or None when bubblewrap gives it one."""
    if isolation.mode == "bubblewrap":
        return None
    scratch = Path(tempfile.mkdtemp(prefix="grader-worker-"))
    if uid is not None:
        os.chown(scratch, uid, uid)
    return scratch


def launch(isolation, scratch, channel):
    """Return how to start a worker whose channel is the pair of descriptors `channel`."""
    return Launch.of(isolation, scratch, channel)


@dataclass
class Launch:
    """A worker's command line, folders, and the descriptors its process starts with."""

    command: list
    cwd: str
    home: str
    inherited: tuple  # (descriptor in the grader, number in the worker)

    @classmethod
    def of(cls, isolation, scratch, channel):
        contained = isolation.mode == "bubblewrap"
        prefix = bubblewrap_prefix(isolation) if contained else []
        runtime = RUNTIME_MOUNT if contained else isolation.runtime
        # -I: no user site, no PYTHON* variables, nothing of the current folder on sys.path; the
        # runtime folder is the only place project modules can come from. Nothing about the
        # channel is on the command line: its descriptors have fixed numbers.
        start = (
            f"import sys; sys.path.insert(0, {runtime!r}); "
            "from grader.sandbox.inside import guard, loop; guard.install(); del guard; "
            "loop.serve()"
        )
        command = [*prefix, python_executable(), "-I", "-X", "utf8", "-c", start]
        inherited = tuple(zip(channel, CHANNEL_FDS, strict=False))  # none when probing
        if contained and isolation.startup_filter is not None:
            inherited += ((syscalls.open_program(isolation.startup_filter), FILTER_FD),)
        home = SCRATCH if contained else str(scratch)
        return cls(command, "/" if contained else str(scratch), home, inherited)

    def prepare(self):
        """In the new process, before it runs the command: put each descriptor at its number."""
        # First out of the way, so that moving one cannot overwrite another.
        moved = [fcntl.fcntl(fd, fcntl.F_DUPFD, 64) for fd, _ in self.inherited]
        for fd, (_, number) in zip(moved, self.inherited, strict=True):
            os.dup2(fd, number)  # dup2 leaves the new descriptor inheritable
            os.close(fd)

    def close(self):
        """Close the descriptors opened for this launch only (not the channel's)."""
        for fd, number in self.inherited:
            if number == FILTER_FD:
                os.close(fd)
