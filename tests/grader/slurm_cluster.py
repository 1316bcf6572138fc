"""A one-node Slurm cluster on localhost, started for one test and stopped after it, failed or not.

The cluster is Debian's slurm-wlm and munge (`make slurm-deps` installs them): munged, slurmctld
and slurmd run in the foreground as children of the test, on ports nobody else uses, with their
configuration, state, spool and logs in the test's folder. Commands reach it through SLURM_CONF
in `environment()`. The one file outside that folder is munged's socket: munged refuses a socket
in a folder whose parents are not open to all, and pytest's are not, so it gets a folder of its
own in the system's temporary folder, removed with the cluster.

The daemons run as the user running the test (SlurmUser, SlurmdUser), root in CI: slurmd needs
root only to start jobs of other users, and this cluster's jobs are all the test's, so a user
without root runs it too. Anything that keeps it from starting raises ClusterError, with the
daemons' logs, which the test turns into a failure: never a skip.
"""

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil

PROGRAMS = ("mungekey", "munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo")
START_SECONDS = 60
STOP_SECONDS = 10
LOG_LINES = 40


class ClusterError(RuntimeError):
    """The cluster could not start, or a job did not finish as it should."""


@dataclass(frozen=True)
class SlurmCluster:
    """A running cluster: its folder, and the configuration its commands read."""

    folder: Path
    conf: Path

    def environment(self) -> dict[str, str]:
        """Return this process's environment with SLURM_CONF pointing at the cluster.

        SBATCH_OUTPUT puts every job's output in the cluster's folder, where `report()` shows
        it, instead of the folder sbatch runs in (for the docs' jobs, the repository).
        """
        output = str(self.folder / "slurm-%j.out")
        return {**os.environ, "SLURM_CONF": str(self.conf), "SBATCH_OUTPUT": output}

    def run(self, *command: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """Run a Slurm command (or `sh -c LINE`) against the cluster; raise if it fails."""
        done = subprocess.run(
            command,
            cwd=cwd,
            env=self.environment(),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if done.returncode != 0:
            raise ClusterError(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")
        return done

    def jobs(self) -> dict[str, dict[str, str]]:
        """Return every job the controller knows (array tasks one by one), by id: its fields."""
        listing = self.run("scontrol", "--oneliner", "show", "job").stdout
        found = {}
        for line in listing.splitlines():
            fields = dict(
                word.split("=", 1) for word in line.split() if "=" in word and word[0].isupper()
            )
            if "JobId" in fields:
                found[fields["JobId"]] = fields
        return found

    def wait_for_all_jobs(self, timeout: float) -> dict[str, dict[str, str]]:
        """Wait until no job is pending or running; return every job; raise after `timeout` s."""
        deadline = time.monotonic() + timeout
        while self.run("squeue", "--noheader", "--format=%i").stdout.strip():
            if time.monotonic() > deadline:
                raise ClusterError(f"jobs still queued after {timeout:.0f} s\n{self.report()}")
            time.sleep(2)
        return self.jobs()

    def report(self) -> str:
        """Return what a failure should show: the queue, the jobs' output and the daemons' logs."""
        parts = []
        with contextlib.suppress(ClusterError, subprocess.TimeoutExpired):
            parts.append(self.run("squeue").stdout)
        for path in sorted(self.folder.glob("*.out")) + sorted(self.folder.glob("log/*")):
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            parts.append(f"--- {path.name}\n" + "\n".join(lines[-LOG_LINES:]))
        return "\n".join(parts)


def this_user() -> str:
    """Return the name of the user running the test: the daemons' and every job's."""
    return pwd.getpwuid(os.geteuid()).pw_name


def free_port() -> int:
    """Return a TCP port no one listens on now, so two clusters on one machine never meet."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def configuration(folder: Path, munge_socket: Path) -> str:
    """Return slurm.conf for one node, localhost, with every CPU this machine has.

    No cgroups (proctrack/linuxproc, task/none) and no accounting: the jobs run as plain
    processes, so the grader inside them makes its own sandbox as it does anywhere else.
    Finished jobs stay known for an hour (MinJobAge), so the test can read how each ended.
    """
    user = this_user()
    settings = {
        "ClusterName": "grading-test",
        "SlurmctldHost": "localhost",
        "SlurmctldPort": free_port(),
        "SlurmdPort": free_port(),
        "SlurmUser": user,
        "SlurmdUser": user,
        "AuthType": "auth/munge",
        "CredType": "cred/munge",
        "AuthInfo": f"socket={munge_socket}",
        "StateSaveLocation": folder / "state",
        "SlurmdSpoolDir": folder / "spool",
        "SlurmctldPidFile": folder / "slurmctld.pid",
        "SlurmdPidFile": folder / "slurmd.pid",
        "SlurmctldLogFile": folder / "log" / "slurmctld.log",
        "SlurmdLogFile": folder / "log" / "slurmd.log",
        "ProctrackType": "proctrack/linuxproc",
        "TaskPlugin": "task/none",
        "JobAcctGatherType": "jobacct_gather/none",
        "AccountingStorageType": "accounting_storage/none",
        "SelectType": "select/cons_tres",
        "SelectTypeParameters": "CR_CPU",
        "MpiDefault": "none",
        "MailProg": "/bin/true",
        "ReturnToService": 2,
        "MinJobAge": 3600,
    }
    lines = [f"{key}={value}" for key, value in settings.items()]
    lines.append(f"NodeName=localhost NodeAddr=127.0.0.1 CPUs={os.cpu_count()} State=UNKNOWN")
    lines.append("PartitionName=grading Nodes=localhost Default=YES MaxTime=INFINITE State=UP")
    return "\n".join(lines) + "\n"


def require_programs() -> None:
    """Raise ClusterError naming the programs missing here, and how to install them."""
    missing = [name for name in PROGRAMS if shutil.which(name) is None]
    if missing:
        raise ClusterError(
            f"{', '.join(missing)} not found: run `make slurm-deps` "
            "(apt-get install slurm-wlm munge); `make test` does"
        )


def wait_until(
    ready: Callable[[], bool],
    what: str,
    cluster: SlurmCluster,
    daemons: dict[str, subprocess.Popen[bytes]],
) -> None:
    """Wait up to START_SECONDS for `ready()`; raise with the daemons' logs if it never is.

    A daemon that ended meanwhile ends the wait at once: it will not be ready later.
    """
    deadline = time.monotonic() + START_SECONDS
    while not ready():
        ended = [
            f"{name} ended with {process.returncode}"
            for name, process in daemons.items()
            if process.poll() is not None
        ]
        if ended or time.monotonic() > deadline:
            why = ", ".join(ended) or f"not within {START_SECONDS} s"
            raise ClusterError(f"{what}: {why}\n{cluster.report()}")
        time.sleep(0.5)


def node_is_idle(cluster: SlurmCluster) -> bool:
    """Return whether slurmctld answers and counts the node idle (ready for jobs)."""
    try:
        states = cluster.run("sinfo", "--noheader", "--format=%t").stdout.split()
    except (ClusterError, subprocess.TimeoutExpired):
        return False
    return states == ["idle"]


def daemon(command: list[str], log: Path, cluster: SlurmCluster) -> subprocess.Popen[bytes]:
    """Start `command` in the foreground, its output in `log`."""
    with log.open("wb") as output:
        return subprocess.Popen(
            command, stdout=output, stderr=subprocess.STDOUT, env=cluster.environment()
        )


def stop(daemons: dict[str, subprocess.Popen[bytes]], cluster: SlurmCluster) -> None:
    """Cancel what is still queued, then end the daemons, the last started first."""
    if daemons and shutil.which("scancel"):
        with contextlib.suppress(ClusterError, subprocess.TimeoutExpired):
            cluster.run("scancel", "--full", f"--user={this_user()}")
            deadline = time.monotonic() + STOP_SECONDS
            while cluster.run("squeue", "--noheader").stdout.strip():
                if time.monotonic() > deadline:
                    break
                time.sleep(0.5)
    for process in reversed(daemons.values()):
        process.terminate()
        try:
            process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    reap_job_steps()


def reap_job_steps() -> None:
    """Collect the ended job steps left to this process, so none stays a zombie.

    slurmd starts each job's slurmstepd detached from itself: where an earlier test made this
    process a subreaper (tests/grader/conftest.py says which), they end as its children.
    """
    for child in psutil.Process().children():
        with contextlib.suppress(psutil.Error, ChildProcessError):
            if child.name() == "slurmstepd" and child.status() == psutil.STATUS_ZOMBIE:
                os.waitpid(child.pid, os.WNOHANG)


@contextlib.contextmanager
def slurm_cluster(folder: Path) -> Iterator[SlurmCluster]:
    """Start munged, slurmctld and slurmd for one node in `folder`; stop them on leaving."""
    require_programs()
    for name in ("state", "spool", "log", "munge"):
        (folder / name).mkdir(parents=True)
    (folder / "munge").chmod(0o700)
    socket_folder = Path(tempfile.mkdtemp(prefix="munge-"))
    socket_folder.chmod(0o755)
    munge_socket = socket_folder / "munge.socket"
    conf = folder / "slurm.conf"
    conf.write_text(configuration(folder, munge_socket), encoding="utf-8")
    cluster = SlurmCluster(folder, conf)
    daemons: dict[str, subprocess.Popen[bytes]] = {}
    try:
        key = folder / "munge" / "munge.key"
        cluster.run("mungekey", "--create", f"--keyfile={key}")
        munged = ["munged", "--foreground", f"--socket={munge_socket}", f"--key-file={key}"]
        munged += [f"--{kind}-file={folder / 'munge' / kind}" for kind in ("pid", "seed")]
        munged.append(f"--log-file={folder / 'log' / 'munged.log'}")
        daemons["munged"] = daemon(munged, folder / "log" / "munged.out", cluster)
        wait_until(munge_socket.exists, "munged made no socket", cluster, daemons)
        ctld = ["slurmctld", "-D", "-f", str(conf)]
        daemons["slurmctld"] = daemon(ctld, folder / "log" / "slurmctld.out", cluster)
        node = ["slurmd", "-D", "-f", str(conf), "-N", "localhost"]
        daemons["slurmd"] = daemon(node, folder / "log" / "slurmd.out", cluster)
        wait_until(lambda: node_is_idle(cluster), "the node is not idle", cluster, daemons)
        yield cluster
    finally:
        stop(daemons, cluster)
        shutil.rmtree(socket_folder, ignore_errors=True)
