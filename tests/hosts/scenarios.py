"""One host scenario: the sandbox's tests and the confinement probe, run as a given user.

    checkout = make_checkout(folder, owner)       # the instructor's copy of the project
    done = run_sandbox_tests(python, checkout, host)      # pytest's verdict on that host
    graded = grade_probe_class(python, checkout, folder, host)   # grades, markers, isolation

A Host says who runs (a user id, or root) and what that host offers (tests/host_expectations.py
reads the same variables): the tests there assert what the host should hold, never detect it.
Used on this machine (test_hosts_here.py) and inside the cgroup-v2 VM (vm_scenarios.py), which
writes what it found for test_hosts_vm.py to judge.
"""

import csv
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
LEAF = "grader-leaf"  # grader.sandbox.cgroups.v2.LEAF
FIXTURES = PROJECT / "fixtures/submissions"
PROBE = FIXTURES / "adversarial/unicode_boundary/confinement-probe.py"
PROBE_TWIN = FIXTURES / "twins/unicode_boundary/confinement-probe.py"
MARKER = "confinement-probe-was-here"
# The sandbox's attack and limit tests: what every host must pass.
SANDBOX_TESTS = (
    "tests/grader/sandbox/test_sandbox_attacks.py",
    "tests/grader/sandbox/test_sandbox_cgroups.py",
    "tests/grader/sandbox/test_sandbox_containment.py",
    "tests/grader/sandbox/test_sandbox_guard.py",
    "tests/grader/sandbox/test_sandbox_kernel.py",
    "tests/grader/sandbox/test_sandbox_landlock.py",
)
# How time is charged: real code burning seconds of processor time, too slow to run ten times
# slower under emulation (the VM), run on every host of this machine (as a user without root it
# charges the worker process's own clock).
CLOCK_TESTS = ("tests/grader/sandbox/test_sandbox_clock.py",)
# What a checkout leaves out: generated output, and what only the test machine has.
NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv", "build", "grades", "test-artifacts", "__pycache__", ".pytest_cache"
)


@dataclass(frozen=True)
class Host:
    """Who runs the grader, and what the host offers it (tests/host_expectations.py)."""

    name: str
    uid: int | None = None  # None: root
    cgroups: str = "1"  # 1, 2 or none
    landlock: int = 1  # the least ABI version expected
    isolation: str = ""  # "process" forbids bubblewrap (GRADER_ISOLATION)
    wrapper: tuple[str, ...] = ()  # a command the grader runs under (without_landlock.py)
    home: str = "/root"
    cgroup: str | None = None  # a v2 group root moves the user's shell into, as a login does
    extra: dict[str, str] = field(default_factory=dict)

    def environment(self, python: Path) -> dict[str, str]:
        environment = {
            "PATH": os.pathsep.join([str(python.parent), "/usr/sbin", "/usr/bin", "/sbin", "/bin"]),
            "LANG": "C.UTF-8",
            "HOME": self.home,
            "PYTHONDONTWRITEBYTECODE": "1",
            "HOST_CGROUPS": self.cgroups,
            "HOST_LANDLOCK": str(self.landlock),
            **self.extra,
        }
        if self.isolation:
            environment["GRADER_ISOLATION"] = self.isolation
        return environment

    def run(self, command, cwd, python, timeout=1500):
        """Run `command` as this host's user, in `cwd`; return the CompletedProcess.

        Root first moves the shell into the host's cgroup (only root may, from its own), then
        gives up root for the user's id, as a login would, before anything else runs.
        """
        prefix: list[str] = []
        if self.cgroup is not None:
            prefix += ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', self.login_group()]
        if self.uid is not None:
            prefix += ["setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups"]
        return subprocess.run(
            [*prefix, *self.wrapper, *map(str, command)],
            cwd=cwd,
            env=self.environment(python),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def login_group(self):
        """Where a new shell of this host's user goes: its group, or the leaf a grader made.

        A grader that made workers' groups moved every process of its group into a leaf and
        enabled controllers there; a group in that state takes no process itself.
        """
        group = Path(self.cgroup)
        if (group / "cgroup.subtree_control").read_text().strip():
            return str(group / LEAF)
        return str(group)


def give(folder, uid):
    """Give `folder` and everything in it to `uid` (and its group of the same number)."""
    if uid is None:
        return
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, uid, uid, follow_symlinks=False)


def make_checkout(folder, uid):
    """Copy the project's files (not its environment) to `folder`, owned by `uid`.

    The instructor's own copy: what the probe tries to write into, as it would on their machine.
    """
    shutil.copytree(PROJECT, folder, ignore=NOT_COPIED, symlinks=True)
    give(folder, uid)
    return folder


def run_sandbox_tests(python, checkout, host, basetemp):
    """Run SANDBOX_TESTS in `checkout` as `host` says; return (exit code, pytest's last lines)."""
    command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=8"]
    command += SANDBOX_TESTS
    if "HOST_SLOWDOWN" not in host.extra:
        command += CLOCK_TESTS
    command += ["--basetemp", basetemp]
    if host.cgroups == "none":
        command += ["-m", "not cgroups"]
    if host.extra.get("HOST_ATTACKS") == "walls":  # the guard's labels: the same on every host
        command += ["-k", "not reaching_into_the_grader"]
    done = host.run(command, checkout, python)
    return done.returncode, (done.stdout + done.stderr)[-6000:]


def grade_probe_class(python, checkout, folder, host, *flags):
    """Grade the sample class beside the probe and its twin as `host`; return what came of it.

    The batch and output folders are the user's, in `folder`; afterwards every file the probe
    could have left (MARKER) is looked for there and in the checkout.
    """
    batch, out = folder / "batch", folder / "out"
    batch.mkdir(parents=True)
    shutil.copytree(PROJECT / "fixtures/sample-class", batch / "sample-class")
    shutil.copyfile(PROBE, batch / "confinement-probe.py")
    shutil.copyfile(PROBE_TWIN, batch / "confinement-probe-twin.py")
    give(folder, host.uid)
    done = host.run(
        [python, "-m", "grader", "grade", batch, "--out", out, *flags], checkout, python
    )
    rows = {}
    if (out / "grades.csv").is_file():
        with (out / "grades.csv").open(encoding="utf-8", newline="") as stream:
            rows = {row.pop("student"): row for row in csv.DictReader(stream)}
    isolation = [line for line in done.stdout.splitlines() if line.startswith("Isolation: ")]
    markers = [str(p) for place in (folder, checkout) for p in place.rglob(MARKER)]
    return {
        "exit": done.returncode,
        "stderr": done.stderr.splitlines()[-3:],
        "rows": rows,
        "isolation": isolation[0] if isolation else "",
        "markers": sorted(markers),
        "probe_said": _probe_said(out),
    }


def _probe_said(out):
    """What the probe printed about its search, from its results file, if it got there."""
    results = out / "confinement-probe" / "results.json"
    if not results.is_file():
        return ""
    text = results.read_text(encoding="utf-8")
    start = text.find("confinement probe reached")
    return text[start : text.find("\\n", start)] if start >= 0 else ""
