"""How workers are shut in: a private runtime folder, bubblewrap, a user id per submission.

    isolation = choose_isolation(prepare_runtime(folder), "auto")   # once per job (runtime.py)
    command = forkserver_command(isolation)                          # the job's warm parent

A worker needs only the Python installation, the supplied course code and the few grader modules
it imports. `prepare_runtime` (grader/sandbox/runtime.py) copies those modules into a fresh
folder, so the worker never sees the repository: not the hidden tests, the solutions, the
fixtures, nor any job or result file.

Each job starts one fork server (grader/sandbox/inside/forkserver.py), which forks every worker.
Under bubblewrap ("bubblewrap" mode) the fork server's whole file system is built from read-only
binds of the system folders, the Python installation and that runtime folder; it has no network,
its own process, IPC and host-name namespaces, and only the capabilities it needs to set up a
worker (switch users, mount, kill its own workers). Each worker then gets its own mount and IPC
namespaces with a fresh, size-limited tmpfs for its scratch folder, /tmp and /dev/shm, and gives
up every capability before any student code runs. Where bubblewrap or the namespaces it needs
are missing ("process" mode), the fork server is a plain child process and each worker works in a
host folder of its own. In both modes, when the grader runs as root, each submission's workers
switch to a user id of their own, and resource limits (memory, processor time, processes, file
size, open files) and a seccomp filter hold them in. Where the kernel offers Landlock, every
worker also confines itself (grader/sandbox/inside/landlock.py): it reads only the system's
libraries, the Python installation and the runtime folder, and changes only its own scratch.
Under bubblewrap that is a second wall; in the fallback it is the wall that keeps student code
from the instructor's files. Where neither holds, files are not confined (`files_confined`),
and `grade` refuses to run unless told to accept that.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.sandbox import seccomp
from grader.sandbox.inside import landlock
from grader.sandbox.inside import syscalls as inside_syscalls
from grader.sandbox.orphans import bubblewrap_children, reap_briefly
from grader.sandbox.runtime import prepare_runtime

SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64")
# Under bubblewrap each worker works in a tmpfs of its own mounted here (and gets its own /tmp
# and /dev/shm), so nothing a student writes reaches the host's disk, and nothing is left to
# remove when the worker ends (see grader/sandbox/inside/syscalls.py).
SCRATCH = inside_syscalls.SCRATCH
# Capabilities the fork server keeps as root: to give each worker its own mounts, switch it to
# its own user and kill it. Every worker gives them all up before student code runs.
PROBE_REAP_SECONDS = 2.0  # how long the probe's leftover bubblewrap may take to end
SERVER_CAPABILITIES = ("CAP_SETUID", "CAP_SETGID", "CAP_SYS_ADMIN", "CAP_KILL")
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
# Why `grade` refuses to start where student code would reach the instructor's files.
UNCONFINED = (
    "student code would not be kept from your files: bubblewrap cannot run here and the kernel "
    "offers no Landlock (install bubblewrap, or grade on Linux 5.13 or later with Landlock on), "
    "or pass --allow-unconfined-files to grade anyway"
)


@dataclass(frozen=True)
class Isolation:
    """How this job's workers run: the mode, the user id to switch to, and the runtime folder."""

    mode: str  # "bubblewrap" or "process"
    runtime: str  # folder holding the only project modules a worker can import
    uid: int | None = None  # first id of the job's block; None when the grader is not root
    seccomp: bytes | None = None  # the program each worker applies to itself, if any
    landlock: int = 0  # the Landlock ABI version each worker confines itself with; 0: none

    def uid_for(self, serial: int) -> int | None:
        """Return the user id of the `serial`-th submission's workers, or None."""
        return None if self.uid is None else self.uid + serial % UIDS_PER_JOB

    @property
    def private_mounts(self) -> bool:
        """Say whether each worker gets its own mounts (scratch, /tmp, /dev/shm) and IPC."""
        return self.mode == "bubblewrap"

    @property
    def files_confined(self) -> bool:
        """Say whether student code is kept from the files of the grader and other students."""
        return self.private_mounts or self.landlock > 0

    def confinement(self, scratch: str | None) -> dict[str, list[str]] | None:
        """Return what a worker may read and change under Landlock, as it sees the paths."""
        if self.landlock < 1:
            return None
        runtime = RUNTIME_MOUNT if self.private_mounts else self.runtime
        read = [*SYSTEM_FOLDERS, str(python_installation()), runtime]
        write = [SCRATCH, "/tmp", "/dev/shm"] if scratch is None else [scratch]
        return {"read": read, "write": [*write, os.devnull]}


def worker_uid() -> int | None:
    """Return the user id this job's workers switch to, or None when the grader is not root."""
    if os.geteuid() != 0:
        return None
    return UID_BASE + (os.getpid() % JOB_SLOTS) * UIDS_PER_JOB


def choose_isolation(runtime: str | Path, wanted: str = "auto") -> Isolation:
    """Return the strongest isolation that works here; `wanted="process"` forces the fallback.

    `wanted="bubblewrap"` requires bubblewrap: RuntimeError, in one line, where it cannot run
    (or GRADER_ISOLATION=process forbids it), never a silent fallback.
    """
    uid = worker_uid()
    program = seccomp.worker_program()
    forced = os.environ.get(ISOLATION_VARIABLE) == "process" or wanted == "process"
    contained = Isolation("bubblewrap", str(runtime), uid, program, landlock.abi())
    if not forced and bubblewrap_works(contained):
        return contained
    if wanted == "bubblewrap":
        why = f"{ISOLATION_VARIABLE}=process is set" if forced else "it cannot run here"
        raise RuntimeError(
            f"bubblewrap is required but {why} (is it installed, does it accept the sandbox's "
            "options, may it make namespaces?)"
        )
    return Isolation("process", str(runtime), uid, program, contained.landlock)


def isolation_here(wanted: str = "auto") -> Isolation:
    """Return the isolation a job would choose here (its runtime folder is already gone)."""
    with tempfile.TemporaryDirectory(prefix="grader-runtime-") as folder:
        return choose_isolation(prepare_runtime(folder), wanted)


def containment_available(wanted: str = "auto") -> bool:
    """Say whether workers would run inside bubblewrap here."""
    return isolation_here(wanted).mode == "bubblewrap"


def files_confined_here(wanted: str = "auto") -> bool:
    """Say whether student code would be kept from the grader's files here (Landlock or bwrap).

    Cheap where the kernel offers Landlock, which confines every mode; otherwise it probes
    bubblewrap, as a job would.
    """
    if landlock.abi() > 0:
        return True
    try:
        return isolation_here(wanted).files_confined
    except RuntimeError:
        return False


def bubblewrap_works(isolation: Isolation) -> bool:
    """Say whether the fork server can run inside bubblewrap here and give workers own mounts."""
    if shutil.which("bwrap") is None:
        return False
    probe = "from grader.sandbox.inside import syscalls; syscalls.private_mounts()"
    command = forkserver_command(isolation, probe)
    before = bubblewrap_children()
    try:
        done = subprocess.run(command, capture_output=True, timeout=10, check=False)
        return done.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        reap_briefly(bubblewrap_children() - before, PROBE_REAP_SECONDS)


def python_executable() -> str:
    """Return the real interpreter behind this (perhaps virtual) environment."""
    return os.path.realpath(sys.executable)


def python_installation() -> Path:
    """Return the folder of the Python installation the interpreter lives in."""
    return Path(os.path.realpath(sys.base_prefix))


def bubblewrap_prefix(isolation: Isolation) -> list[str]:
    """Return the bubblewrap command that shuts the fork server in (see the module docstring).

    Only options that bubblewrap 0.4 already knows (Ubuntu 22.04 ships 0.6): the workers' sized
    tmpfs mounts are made by each worker itself, not by bubblewrap's --size.
    """
    command = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    command += ["--die-with-parent", "--new-session"]
    if isolation.uid is None:
        # Not root: bubblewrap makes a user namespace, in which the fork server may keep the
        # capabilities it needs; they reach nothing outside the sandbox's own namespaces.
        command += ["--unshare-user", "--uid", "0", "--gid", "0", "--cap-add", "ALL"]
    else:
        command += ["--cap-drop", "ALL"]
        for capability in SERVER_CAPABILITIES:
            command += ["--cap-add", capability]
    command += _system_binds()
    command += _readable_bind(python_installation())
    command += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", SCRATCH]
    command += ["--ro-bind", isolation.runtime, RUNTIME_MOUNT, "--chdir", "/"]
    return command


def _system_binds() -> list[str]:
    """Bind the system folders read-only, keeping the symbolic links of a merged /usr."""
    command: list[str] = []
    for name in SYSTEM_FOLDERS:
        if os.path.islink(name):
            command += ["--symlink", os.readlink(name), name]
        elif os.path.isdir(name):
            command += ["--ro-bind", name, name]
    return command


def _readable_bind(folder: Path) -> list[str]:
    """Bind `folder` read-only, its parent folders open to every user (even /root's)."""
    return [*_open_parents(folder), "--ro-bind", str(folder), str(folder)]


def _open_parents(folder: Path) -> list[str]:
    """Create the parents of `folder` that the sandbox lacks, open to every user."""
    command: list[str] = []
    for parent in reversed(folder.parents):
        if parent not in (Path("/"), Path("/tmp")) and not _in_system_folder(parent):
            command += ["--dir", str(parent)]  # 0755, bubblewrap's default
    return command


def _in_system_folder(path: Path) -> bool:
    return any(path == Path(name) or Path(name) in path.parents for name in SYSTEM_FOLDERS)


def make_scratch(isolation: Isolation, uid: int | None) -> Path | None:
    """Return a host folder for the worker to work in, or None when it gets a tmpfs of its own."""
    if isolation.private_mounts:
        return None
    scratch = Path(tempfile.mkdtemp(prefix="grader-worker-"))
    if uid is not None:
        os.chown(scratch, uid, uid)
    return scratch


SERVE = "from grader.sandbox.inside.forkserver import serve; serve()"


def forkserver_command(isolation: Isolation, then: str = SERVE) -> list[str]:
    """Return the command that starts a job's fork server (or runs `then` in its place)."""
    contained = isolation.mode == "bubblewrap"
    prefix = bubblewrap_prefix(isolation) if contained else []
    runtime = RUNTIME_MOUNT if contained else isolation.runtime
    # -I: no user site, no PYTHON* variables, nothing of the current folder on sys.path; the
    # runtime folder is the only place project modules can come from. Nothing about the
    # channels is on the command line: the control socket has a fixed number.
    start = f"import sys; sys.path.insert(0, {runtime!r}); {then}"
    return [*prefix, python_executable(), "-I", "-X", "utf8", "-c", start]


def forkserver_environment(isolation: Isolation) -> dict[str, str]:
    """Return the small environment the fork server, and so every worker, runs with."""
    home = SCRATCH if isolation.private_mounts else tempfile.gettempdir()
    return {"PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8", "TMPDIR": home}


def readable_binds(folders: list[Path]) -> list[str]:
    """Return bubblewrap options showing the system folders and `folders` read-only to every user.

    The same binds as the fork server's, for the kernels nbgrader starts
    (grader/integrations/kernel_confinement.py).
    """
    command = _system_binds()
    for folder in folders:
        command += _readable_bind(folder)
    return command
