"""How the kernels nbgrader's autograde starts are shut in, and the one place that decides it.

    confinement = choose_kernel_confinement(unconfined_allowed=False)   # before each kernel
    command = confined_command(confinement, places, kernel_argv)         # what is started

Every kernel runs a student's cells, so it gets what a grading worker gets and nothing more
(grader/sandbox/containment.py): under bubblewrap, read-only binds of the system folders, the
Python installation and the virtual environment the kernel runs from (at their real paths, on
top of the kernel's private /tmp, so one under /tmp is seen too), the supplied course code
(no grader, hidden tests, solutions or fixtures), no network, its own process, IPC and host-name
namespaces, and its own private folders (grader/integrations/kernel_places.py), of which a copy
of the student's folder is its working folder. Nothing else of the host is there: not the course
root, the gradebook, the exchange, nor anyone's submitted or autograded folders. When the grader
runs as root, the kernel runs as a user id of its own with no capabilities (setpriv, of
util-linux); otherwise bubblewrap's user namespace keeps it the instructor's own id, without
capabilities. The kernel talks to nbgrader over sockets in a folder (jupyter_client's ipc
transport), as it has no network.

`choose_kernel_confinement` is the only place that decides. It starts the kernel's Python in
the sandbox once; where that fails it raises ConfinementUnavailable, naming the cause (bubblewrap
missing or refused, or the Python not starting inside) and its fix, unless the instructor
allowed unconfined kernels: then the mode is "none" and the kernel runs as nbgrader would run
it, with the instructor's rights. Another confinement (Landlock, say) would be one more mode
chosen there.
"""

import importlib.util
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.integrations.kernel_places import HOME_MOUNT, SOCKETS_MOUNT, KernelPlaces
from grader.sandbox import containment

BUBBLEWRAP = "bubblewrap"
UNCONFINED = "none"
# Kernels' user ids: the block just below the grading workers', one id per nbgrader process
# alive at once, so a kernel never shares an id with a worker or with another process's kernel.
KERNEL_UID_BASE = containment.UID_BASE - containment.JOB_SLOTS
# The project's packages: an installed copy inside a folder the kernel sees (a virtual
# environment installed without -e) is hidden from it, hidden tests and all.
PROJECT_PACKAGES = ("grader", "course", "tooling", "bench")
PROBE_SECONDS = 20
# What bubblewrap itself runs with; the kernel gets KERNEL_ENVIRONMENT only, never nbgrader's.
BUBBLEWRAP_ENVIRONMENT = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
KERNEL_ENVIRONMENT = {
    "HOME": HOME_MOUNT,
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "USER": "student",
    # Its parent is the sandbox's first process, pid 1: ipykernel then neither watches for its
    # parent's end (bubblewrap ends it with nbgrader) nor prints a note about Ctrl-C.
    "JPY_PARENT_PID": "1",
    # The supplied course code, first: a student's cells import it as in their own lab.
    "PYTHONPATH": containment.RUNTIME_MOUNT,
}


class ConfinementUnavailable(Exception):
    """No confinement can be had here: `cause` says why, as part of a sentence; `fix` what to do."""

    def __init__(self, cause: str, fix: str) -> None:
        super().__init__(cause)
        self.cause = cause
        self.fix = fix


@dataclass(frozen=True)
class Obstacle:
    """Why kernels cannot be confined here, as part of a sentence, and the fix, as a sentence."""

    cause: str
    fix: str


SANDBOX_DEPS = "Install bubblewrap (make sandbox-deps)."


@dataclass(frozen=True)
class KernelConfinement:
    """How a kernel runs: its mode, and the user id it runs as when the grader is root."""

    mode: str  # BUBBLEWRAP or UNCONFINED
    uid: int | None = None
    missing: str = ""  # why the kernel is not confined (UNCONFINED only)


def choose_kernel_confinement(unconfined_allowed: bool) -> KernelConfinement:
    """Return the confinement kernels get here: the one place that decides it.

    Raise ConfinementUnavailable where none works, unless `unconfined_allowed`.
    """
    uid = kernel_uid()
    obstacle = why_bubblewrap_cannot_run(uid)
    if obstacle is None:
        return KernelConfinement(BUBBLEWRAP, uid)
    if unconfined_allowed:
        return KernelConfinement(UNCONFINED, missing=obstacle.cause)
    raise ConfinementUnavailable(obstacle.cause, obstacle.fix)


def kernel_uid() -> int | None:
    """Return the user id this process's kernels run as, or None when it is not root."""
    if os.geteuid() != 0:
        return None
    return KERNEL_UID_BASE + os.getpid() % containment.JOB_SLOTS


def why_bubblewrap_cannot_run(uid: int | None) -> Obstacle | None:
    """Say why a kernel cannot be started in bubblewrap here, and the fix, or None when it can.

    The probe is the kernel's own Python started in the kernel's sandbox, so a failure is told
    apart: bubblewrap refusing to make the sandbox, or that Python not starting inside it.
    """
    variable = containment.ISOLATION_VARIABLE
    if os.environ.get(variable) == "process":
        return Obstacle(f"{variable}=process is set", f"Unset {variable} for autograde.")
    if shutil.which("bwrap") is None:
        return Obstacle("bubblewrap is not installed", SANDBOX_DEPS)
    if uid is not None and shutil.which("setpriv") is None:
        return Obstacle("setpriv (util-linux) is not installed", "Install util-linux.")
    places = KernelPlaces.make(None, uid)
    try:
        probe = [sys.executable, "-I", "-c", "pass"]
        command = confined_command(KernelConfinement(BUBBLEWRAP, uid), places, probe)
        done = subprocess.run(
            command,
            env=BUBBLEWRAP_ENVIRONMENT,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=PROBE_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        cause = f"bubblewrap could not be started ({type(error).__name__})"
        return Obstacle(cause, "Check that `bwrap --ro-bind / / true` runs as this user.")
    finally:
        places.remove()
    if done.returncode == 0:
        return None
    return probe_failure(done.stderr)


def probe_failure(stderr: str) -> Obstacle:
    """Say why the probe failed, and the fix, from the last line it printed.

    bubblewrap's and setpriv's own lines begin with their names; any other line, bubblewrap's
    execvp failing or a line naming the Python is that Python not starting inside.
    """
    said = (stderr.strip().splitlines() or ["no message"])[-1]
    shown = ", ".join(str(folder) for folder in kernel_installation())
    own = said.startswith(("bwrap: ", "setpriv: ")) and not said.startswith("bwrap: execvp")
    sandbox_refused = own and sys.executable not in said
    if not sandbox_refused:
        return Obstacle(
            f"the kernel's Python ({sys.executable}) does not start inside its sandbox ({said})",
            f"Run autograde from a Python whose files all lie in {shown} or the system folders "
            "(a virtual environment made from it), and report this line if they do.",
        )
    return Obstacle(
        f"bubblewrap cannot make the kernel's sandbox here ({said})",
        "Let this user make namespaces (on Ubuntu 24.04, an AppArmor profile for bwrap, or "
        "kernel.apparmor_restrict_unprivileged_userns=0), or run autograde as root.",
    )


def confined_command(
    confinement: KernelConfinement, places: KernelPlaces, argv: list[str]
) -> list[str]:
    """Return the command that runs `argv` (a kernel) confined as `confinement` says."""
    if confinement.mode == UNCONFINED:
        return list(argv)
    command = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    command += ["--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if confinement.uid is None:
        command += ["--unshare-user"]  # the instructor's own id, without capabilities
    else:
        # Only to switch to the kernel's own user, which drops them all (below).
        for capability in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"):
            command += ["--cap-add", capability]
    # Its /tmp first: the Python it runs may be installed under the host's /tmp (a course's
    # virtual environment often is), and is then bound at its real path on top of it.
    command += ["--bind", str(places.tmp), "/tmp"]
    shown = kernel_installation()
    command += containment.readable_binds(shown)
    for package in installed_project_packages(shown):
        command += ["--tmpfs", str(package)]
    command += ["--proc", "/proc", "--dev", "/dev"]
    for mount in (HOME_MOUNT, SOCKETS_MOUNT):  # their parents open to the kernel's user
        command += ["--dir", str(Path(mount).parent)]
    command += ["--bind", str(places.home), HOME_MOUNT]
    command += ["--bind", str(places.sockets), SOCKETS_MOUNT]
    command += ["--ro-bind", str(places.runtime), containment.RUNTIME_MOUNT, "--chdir", "/"]
    if confinement.uid is not None:
        uid = str(confinement.uid)
        command += ["setpriv", "--reuid", uid, "--regid", uid, "--clear-groups"]
        command += ["--inh-caps=-all", "--bounding-set=-all", "--"]
    path = f"{Path(sys.executable).parent}:/usr/bin:/bin"
    variables = [f"{name}={value}" for name, value in {**KERNEL_ENVIRONMENT, "PATH": path}.items()]
    # Into the working folder only as the kernel's user: it is theirs alone (mode 0700).
    return [*command, "env", "-i", "-C", places.work_inside, *variables, *argv]


def kernel_installation() -> list[Path]:
    """Return the folders of the Python the kernel runs: its installation and its environment."""
    installation = containment.python_installation()
    environment = Path(os.path.realpath(sys.prefix))
    if environment == installation or installation in environment.parents:
        return [installation]
    return [installation, environment]


def installed_project_packages(shown: list[Path]) -> list[Path]:
    """Return the folders of the project's packages that lie inside the folders in `shown`."""
    found = []
    for name in PROJECT_PACKAGES:
        spec = importlib.util.find_spec(name)
        for location in (spec.submodule_search_locations or []) if spec else []:
            folder = Path(os.path.realpath(location))
            if any(folder == place or place in folder.parents for place in shown):
                found.append(folder)
    return found
