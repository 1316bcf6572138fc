"""How a worker is shut in: a private runtime folder, bubblewrap, an unprivileged user.

    isolation = choose_isolation(runtime_folder, "auto")   # once per job
    command = worker_command(isolation, request_fd, reply_fd, scratch)

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

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
# Everything the worker imports from the project; all of it is safe for a student to read.
RUNTIME_FILES = ("grader/__init__.py", "grader/model.py")
RUNTIME_FOLDERS = ("course", "grader/sandbox")
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64")
PRIVATE_TMP_BYTES = 16 << 20
# Where a bubblewrapped worker sees the runtime folder: one fixed place, so the tracebacks a
# student's output may show are the same in every job.
RUNTIME_MOUNT = "/grader-runtime"
# Workers of a job run as UID_BASE + the job's process id: unique among the jobs alive at once,
# so each job's process limit and clean-up concern its own workers only.
UID_BASE = 200_000
# Setting GRADER_ISOLATION=process in the grader's environment forces the fallback.
ISOLATION_VARIABLE = "GRADER_ISOLATION"


@dataclass(frozen=True)
class Isolation:
    """How this job's workers run: the mode, the user id to switch to, and the runtime folder."""

    mode: str  # "bubblewrap" or "process"
    runtime: str  # folder holding the only project modules a worker can import
    uid: int | None = None  # None when the grader is not root and cannot switch users


def prepare_runtime(folder):
    """Copy the modules a worker imports into `folder`/runtime, readable by everyone; return it."""
    runtime = Path(folder) / "runtime"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in RUNTIME_FOLDERS:
        shutil.copytree(PROJECT / name, runtime / name, ignore=ignore)
    for name in RUNTIME_FILES:
        shutil.copyfile(PROJECT / name, runtime / name)
    for place in (Path(folder), *runtime.rglob("*"), runtime):
        place.chmod(0o755 if place.is_dir() else 0o644)
    return runtime


def worker_uid():
    """Return the user id this job's workers switch to, or None when the grader is not root."""
    return UID_BASE + os.getpid() if os.geteuid() == 0 else None


def choose_isolation(runtime, wanted="auto"):
    """Return the strongest isolation that works here; `wanted="process"` forces the fallback."""
    uid = worker_uid()
    forced = os.environ.get(ISOLATION_VARIABLE) == "process" or wanted == "process"
    if not forced and bubblewrap_works(runtime, uid):
        return Isolation("bubblewrap", str(runtime), uid)
    return Isolation("process", str(runtime), uid)


def containment_available(wanted="auto"):
    """Say whether workers would run inside bubblewrap here: what a run's summary reports."""
    with tempfile.TemporaryDirectory(prefix="grader-runtime-") as folder:
        return choose_isolation(prepare_runtime(folder), wanted).mode == "bubblewrap"


def bubblewrap_works(runtime, uid):
    """Say whether a worker can start inside bubblewrap here (it needs namespaces)."""
    if shutil.which("bwrap") is None:
        return False
    scratch = Path(tempfile.mkdtemp(prefix="grader-probe-"))
    try:
        isolation = Isolation("bubblewrap", str(runtime), uid)
        command = [*bubblewrap_prefix(isolation, scratch), python_executable(), "-I", "-c", "pass"]
        probe = subprocess.run(command, capture_output=True, timeout=10, check=False)
        return probe.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def python_executable():
    """Return the real interpreter behind this (perhaps virtual) environment."""
    return os.path.realpath(sys.executable)


def python_installation():
    """Return the folder of the Python installation the interpreter lives in."""
    return Path(os.path.realpath(sys.base_prefix))


def bubblewrap_prefix(isolation, scratch):
    """Return the bubblewrap command that shuts a worker in (see the module docstring)."""
    command = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    command += ["--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    command += ["--cap-drop", "ALL"]
    if isolation.uid is not None:
        # Only to switch to the worker's own user; switching from root clears them again.
        command += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    command += _system_binds()
    command += _readable_bind(python_installation())
    command += ["--proc", "/proc", "--dev", "/dev"]
    command += ["--perms", "1777", "--size", str(PRIVATE_TMP_BYTES), "--tmpfs", "/tmp"]
    command += ["--ro-bind", isolation.runtime, RUNTIME_MOUNT]
    command += _open_parents(Path(scratch))
    command += ["--bind", str(scratch), str(scratch), "--chdir", str(scratch)]
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


def worker_command(isolation, request_fd, reply_fd, scratch):
    """Return the command line that starts a worker serving on the two descriptors."""
    contained = isolation.mode == "bubblewrap"
    prefix = bubblewrap_prefix(isolation, scratch) if contained else []
    # -I: no user site, no PYTHON* variables, nothing of the current folder on sys.path; the
    # runtime folder is the only place project modules can come from.
    start = (
        "import sys; sys.path.insert(0, sys.argv.pop(1)); "
        "from grader.sandbox.worker import main; main(sys.argv)"
    )
    uid = [] if isolation.uid is None else [str(isolation.uid)]
    return [
        *prefix,
        python_executable(),
        "-I",
        "-X",
        "utf8",
        "-c",
        start,
        RUNTIME_MOUNT if contained else isolation.runtime,
        str(request_fd),
        str(reply_fd),
        *uid,
    ]
