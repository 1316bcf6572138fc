"""Debian 12's own kernel, cgroup v2 only, in a VM: as root, and as a user in a delegated subtree.

One boot of the kernel `make vm-deps` installs (Debian's linux-image-amd64), driven by
virtme-ng under QEMU's software emulation (KVM guests hang at boot on CI's machine), sharing
this machine's files read-only. Inside, tests/hosts/vm_scenarios.py runs the sandbox's attack
and limit tests and grades the sample class beside the confinement probe, as root and as a
user without root; this test judges what it wrote. The boot and both scenarios take a few
minutes (docs/hosts-and-isolation.md says how many).
"""

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from scenarios import PROJECT, Host, grade_probe_class, make_checkout

pytestmark = [
    pytest.mark.bwrap,
    pytest.mark.vm,
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="QEMU and the VM's users need root (CI is root)"),
]
# A bound for a hang, not a goal: CI's VM took about 25 minutes in all (emulated, each host's
# sandbox tests about 10 of them, most of it grading the attack batch), and a busy CI machine
# stretches emulated time further.
VM_SECONDS = 2700
SAMPLE = ("ada", "alan", "barbara", "grace", "linus")
SCENARIOS = ("vm-root", "vm-user")
# Debian 12's kernel: Landlock ABI 2 (files, and moving them between folders; no network).
LANDLOCK = 2


def debian_kernel():
    """Return the newest kernel Debian's linux-image-amd64 installed here."""
    kernels = sorted(Path("/boot").glob("vmlinuz-*-amd64"), key=lambda p: p.stat().st_mtime)
    assert kernels, "no Debian kernel in /boot: run `make vm-deps`"
    return kernels[-1]


@pytest.fixture(scope="module")
def vm():
    """Boot the VM once, run every scenario in it, and return what it wrote (and how long)."""
    results = Path(tempfile.mkdtemp(prefix="grader-vm-results-"))
    vng = shutil.which("vng") or str(PROJECT / ".venv/bin/vng")
    python = PROJECT / ".venv/bin/python"
    inside = f"cd {PROJECT} && {python} tests/hosts/vm_scenarios.py {results}"
    command = [vng, "--disable-kvm", "--run", str(debian_kernel()), "--memory", "3G"]
    command += ["--cpus", "2", "--rwdir", str(results), "--exec", inside]
    started = time.monotonic()
    try:
        done = _run(command)
        seconds = time.monotonic() - started
        report = results / "vm.json"
        assert report.is_file(), done
        found = json.loads(report.read_text(encoding="utf-8"))
        found["seconds"] = seconds
        print(f"\nthe VM's boot and scenarios took {seconds:.0f} s")
        return found
    finally:
        shutil.rmtree(results, ignore_errors=True)


def _run(command):
    environment = dict(os.environ, PATH=f"{PROJECT / '.venv/bin'}:{os.environ['PATH']}")
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=VM_SECONDS, env=environment, check=False
    )
    return (done.stdout + done.stderr)[-4000:]


@pytest.fixture(scope="module")
def here(tmp_path_factory):
    """The same class graded on this machine as root: what every host must give."""
    folder = tmp_path_factory.mktemp("root-here")
    checkout = make_checkout(folder / "project", None)
    return grade_probe_class(PROJECT / ".venv/bin/python", checkout, folder / "class", Host("root"))


def test_the_vm_runs_debian_s_kernel_with_landlock(vm):
    assert vm["kernel"] == debian_kernel().name.removeprefix("vmlinuz-")
    assert vm["landlock"] == LANDLOCK


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_sandbox_tests_pass_on_cgroup_v2(vm, name):
    tests = vm[name]["tests"]
    assert tests["exit"] == 0, tests["said"]
    said = tests["said"]
    assert " passed" in said and "failed" not in said and "skipped" not in said, said


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_probe_reaches_nothing_on_cgroup_v2(vm, name):
    graded = vm[name]["graded"]
    assert graded["exit"] == 0, graded["stderr"]
    assert graded["markers"] == []
    assert graded["rows"]["confinement-probe"] == graded["rows"]["confinement-probe-twin"]


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_sample_class_grades_as_it_does_here(vm, here, name):
    rows = vm[name]["graded"]["rows"]
    assert {s: rows[s] for s in SAMPLE} == {s: here["rows"][s] for s in SAMPLE}


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_isolation_line_says_cgroup_v2_and_landlock_2_hold(vm, name):
    line = vm[name]["graded"]["isolation"]
    assert line.startswith("Isolation: bubblewrap (")
    assert f"Landlock ABI {LANDLOCK} (" in line and "no TCP" not in line
    assert "a cgroup v2 per worker holding memory (shared memory too), processes, CPU share" in line
    assert "time charged as the processor time each worker's cgroup counts" in line
    own_user = "every worker runs as the grader's own user" in line
    assert own_user == (name == "vm-user")
