"""Inside the cgroup-v2 VM, as root: every scenario of that kernel, written to RESULTS/vm.json.

    python tests/hosts/vm_scenarios.py RESULTS

test_hosts_vm.py boots Debian's own kernel (cgroup v2 only) with virtme-ng and runs this once.
Two hosts share the boot: root, in a group of its own as a service or container would be, and a
user without root in a subtree delegated to it as systemd gives every login (a folder under
/sys/fs/cgroup that root made and gave the user, memory, pids and cpu enabled above it, the
user's shell moved in). Each runs the sandbox's attack and limit tests and grades the sample
class beside the confinement probe; the verdicts are judged on the host, outside the VM.
"""

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[n]) for n in (2, 0, 1)]

from accounts import python_for_users  # noqa: E402
from host_expectations import slower  # noqa: E402
from scenarios import PROJECT, Host, grade_probe_class, make_checkout, run_sandbox_tests  # noqa: E402

from grader.model import Limits  # noqa: E402

CGROUPS = Path("/sys/fs/cgroup")
CONTROLLERS = "+memory +pids +cpu"
# The user's id. It has no account: virtme-ng's /etc/shadow is a file mounted in place, which
# useradd cannot replace, and nothing the grader or its tests run looks a name up.
USER_ID = 4242
# Code runs many times slower under QEMU's emulation: the tests' time limits grow to match, and
# the attack batch holds the attacks whose walls differ by host (CI's run has every attack).
SLOW = {"HOST_SLOWDOWN": "10", "HOST_ATTACKS": "walls"}


def delegate(name, uid):
    """Make CGROUPS/name with memory, pids and cpu to give, and give it to `uid` (None: root)."""
    (CGROUPS / "cgroup.subtree_control").write_text(CONTROLLERS)
    group = CGROUPS / name
    group.mkdir()
    if uid is not None:  # what systemd's Delegate=yes hands the user: the folder and these files
        for file in (".", "cgroup.procs", "cgroup.subtree_control", "cgroup.threads"):
            os.chown(group / file, uid, uid)
    return str(group)


def warm_cache(python):
    """Import what grading and its tests import, once: the VM reads this machine's files over 9p,
    slowly, and a first read during a test would count against its time limits."""
    modules = "pytest, psutil, pyseccomp, grader.cli, grader.batch.run, grader.job.main"
    modules += ", grader.selfcheck.catalogue"
    modules += ", grader.sandbox.inside.forkserver, grader.sandbox.inside.guard"
    subprocess.run([python, "-c", f"import {modules}"], cwd=PROJECT, check=True)


def landlock_abi():
    from grader.sandbox.inside import landlock

    return landlock.abi()


def scenario(host, python, base):
    """Run one host's tests and grading; return what each gave and how long it took."""
    folder = base / host.name
    folder.mkdir()
    if host.uid is not None:
        os.chown(folder, host.uid, host.uid)
    checkout = make_checkout(folder / "project", host.uid)
    started = time.monotonic()
    code, said = run_sandbox_tests(python, checkout, host, folder / "pytest")
    tested = time.monotonic() - started
    # A submission's time limit grows with the host's slowness, as the tests' limits do: the
    # first correct submission of a class, judged without classmates' verdicts to reuse, takes
    # most of the default 10 s of processor time under emulation.
    timeout = slower(Limits.timeout, host.extra)
    graded = grade_probe_class(python, checkout, folder / "class", host, "--timeout", timeout)
    return {
        "tests": {"exit": code, "said": said, "seconds": round(tested, 1)},
        "graded": graded,
        "grading_seconds": round(time.monotonic() - started - tested, 1),
    }


def main():
    results = Path(sys.argv[1])
    base = Path(tempfile.mkdtemp(prefix="grader-vm-", dir="/var/tmp"))
    base.chmod(0o755)
    home = base / "home"
    home.mkdir()
    os.chown(home, USER_ID, USER_ID)
    abi = landlock_abi()
    warm_cache(sys.executable)
    # One Python every user may run, for root too: root's own (under /root) would make each
    # root worker import its modules before it switches users, seconds under emulation that
    # count against a submission's first test; an instructor's system Python makes none.
    root_python = user_python = python_for_users(base)
    hosts = {
        "vm-root": (
            Host("vm-root", None, "2", abi, extra=SLOW, cgroup=delegate("hosts-root", None)),
            root_python,
        ),
        "vm-user": (
            Host(
                "vm-user",
                USER_ID,
                "2",
                abi,
                home=str(home),
                extra=SLOW,
                cgroup=delegate("hosts-user", USER_ID),
            ),
            user_python,
        ),
    }
    found = {"kernel": platform.release(), "landlock": abi}
    for name, (host, python) in hosts.items():
        found[name] = scenario(host, python, base)
        (results / "vm.json").write_text(json.dumps(found, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
