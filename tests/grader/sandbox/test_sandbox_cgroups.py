"""A worker's cgroup holds its memory, processes and processor share, on v1 and on v2 alike.

These run real children in real groups: nothing is mocked. Which hierarchy the host offers is
said, not detected (tests/host_expectations.py): CI's machine mounts v1 and runs these as root;
tests/hosts/ runs them again on a cgroup-v2 kernel, as root and as a user in a delegated
subtree. Tests marked `cgroups` need groups the grader may make; a host without any runs only
the first test, which asserts that none is claimed.
"""

import json
import select
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest
from host_expectations import expected_cgroups, expected_controllers

from grader.sandbox import cgroups
from grader.sandbox.cgroups import v2
from grader.sandbox.containment import isolation_here
from grader.sandbox.wording import describe

pytestmark = [pytest.mark.bwrap]

MIB = 1 << 20
needs_groups = pytest.mark.cgroups
# Where each limit is written, and what it must read, in each hierarchy.
LIMIT_FILES = {
    1: {
        "memory": ("memory.limit_in_bytes", str(64 * MIB)),
        "swap": ("memory.memsw.limit_in_bytes", str(64 * MIB)),  # memory and swap together
        "pids": ("pids.max", "4"),
        "cpu": ("cpu.shares", "1024"),
    },
    2: {
        "memory": ("memory.max", str(64 * MIB)),
        "swap": ("memory.swap.max", "0"),  # swap on top of memory: none
        "pids": ("pids.max", "4"),
        "cpu": ("cpu.weight", "100"),
    },
}
USAGE_FILE = {1: "memory.usage_in_bytes", 2: "memory.current"}
CONTROLLER_OF = {"memory": "memory", "swap": "memory", "pids": "pids", "cpu": "cpu"}


@pytest.fixture
def make_group():
    made: list[cgroups.WorkerGroup] = []

    def make(memory_bytes: int = 256 * MIB, pids: int = 32) -> cgroups.WorkerGroup:
        group = cgroups.WorkerGroup.create(f"test-{uuid.uuid4().hex[:12]}", memory_bytes, pids)
        assert group is not None
        made.append(group)
        return group

    yield make
    for group in made:
        group.close()


def _python(code: str, group: cgroups.WorkerGroup, **options) -> subprocess.Popen:
    prelude = "import json, os, sys\n"
    command = [sys.executable, "-I", "-c", prelude + textwrap.dedent(code)]
    return subprocess.Popen(command, preexec_fn=group.attach_self, text=True, **options)


def test_the_hierarchy_in_use_is_the_one_this_host_offers():
    controllers = cgroups.available()
    assert controllers == expected_controllers()
    summary = describe(isolation_here())
    if expected_cgroups() == "none":
        assert "no cgroups (not writable here)" in summary
        assert "time charged as each worker process's own processor time" in summary
    else:
        assert cgroups.version() == int(expected_cgroups())
        assert f"a cgroup v{expected_cgroups()} per worker holding memory" in summary
        assert "time charged as the processor time each worker's cgroup counts" in summary


@needs_groups
def test_create_writes_the_limits(make_group):
    group = make_group(64 * MIB, 4)
    for limit, (name, value) in LIMIT_FILES[cgroups.version()].items():
        path = group.paths[CONTROLLER_OF[limit]] / name
        if limit == "swap" and not path.exists():
            continue  # a kernel that does not account swap has no such file, and no swap
        assert path.read_text().strip() == value, name


@needs_groups
def test_create_refuses_a_name_already_in_use(make_group):
    group = make_group()
    assert cgroups.WorkerGroup.create(group.name, 64 * MIB, 4) is None
    assert all(path.exists() for path in group.paths.values())  # the first one is untouched


@needs_groups
def test_attach_self_moves_the_child_into_every_group(make_group):
    group = make_group()
    child = _python("print(open('/proc/self/cgroup').read())", group, stdout=subprocess.PIPE)
    out, _ = child.communicate(timeout=10)
    lines = dict(line.split(":", 2)[1:] for line in out.split())
    names = ["memory", "pids", "cpu", "cpuacct"] if cgroups.version() == 1 else [""]
    for controller in names:
        assert lines[controller].endswith(f"/{group.name}")


@needs_groups
def test_worker_groups_sit_below_the_graders_own_group(make_group):
    group = make_group()
    folders = set(group.paths.values())
    if cgroups.version() == 1:
        assert {folder.parent.name for folder in folders} == {"grader"}
        return
    [folder] = folders
    own = v2.own_group()
    assert own is not None
    # The grader moved itself into a leaf, so that its group may give controllers below it.
    parent = own.parent if own.name == v2.LEAF else own
    assert folder.parent == parent
    if (parent / "cgroup.type").exists():  # the root group alone may hold processes
        assert (parent / "cgroup.procs").read_text() == ""


FILLERS = {
    "shm file": "target = open(SHM, 'wb', buffering=0)\nput = target.write",
    "memfd": "fd = os.memfd_create('fill')\nput = lambda chunk: os.write(fd, chunk)",
    "shared mmap": (
        "import mmap\narea = mmap.mmap(-1, 200 * MIB)\n"
        "def put(chunk, at=[0]):\n    area[at[0]:at[0] + MIB] = chunk\n    at[0] += MIB"
    ),
    "heap": "kept = []\nput = kept.append",
}


@needs_groups
@pytest.mark.parametrize("filler", list(FILLERS))
def test_memory_limit_stops_a_child_filling_200_mib(make_group, filler):
    group = make_group(64 * MIB)
    shm = Path(f"/dev/shm/test-sandbox-cgroups-{group.name}")
    code = f"MIB = {MIB}\nSHM = {str(shm)!r}\n{FILLERS[filler]}\n"
    code += "for count in range(1, 201):\n    put(b'x' * MIB)\n    print(count, flush=True)\n"
    try:
        child = _python(code, group, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, _ = child.communicate(timeout=60)
        filled = int(out.split()[-1]) if out.split() else 0
        assert child.returncode == -signal.SIGKILL
        assert filled < 64
        assert group.memory_exhausted()
        if filler == "shm file":  # the file outlives its writer, and stays charged to the group
            usage = int((group.paths["memory"] / USAGE_FILE[cgroups.version()]).read_text())
            assert usage >= 32 * MIB
    finally:
        shm.unlink(missing_ok=True)


@needs_groups
def test_an_honest_child_is_not_reported_out_of_memory(make_group):
    group = make_group(64 * MIB)
    child = _python("kept = b'x' * (8 * 1024 * 1024)", group)
    assert child.wait(timeout=30) == 0
    assert not group.memory_exhausted()


def _line(stream, seconds: float) -> str:
    ready, _, _ = select.select([stream], [], [], seconds)
    assert ready, "the child said nothing"
    return stream.readline()


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@needs_groups
def test_pids_limit_stops_a_fork_loop_and_close_kills_the_forks(make_group):
    group = make_group(pids=4)
    code = """
    import time
    forks, refused = [], 0
    for _ in range(20):
        try:
            pid = os.fork()
        except BlockingIOError:
            refused += 1
            continue
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        forks.append(pid)
    print(json.dumps({"forks": forks, "refused": refused}), flush=True)
    time.sleep(60)
    """
    child = _python(code, group, stdout=subprocess.PIPE)
    try:
        report = json.loads(_line(child.stdout, 30))
        assert len(report["forks"]) == 3 and report["refused"] == 17  # 3 forks + the child = 4
        assert sorted(group.pids()) == sorted([child.pid, *report["forks"]])
        group.close()
        assert child.wait(timeout=5) == -signal.SIGKILL
        deadline = time.monotonic() + 5
        while any(map(_alive, report["forks"])) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not any(map(_alive, report["forks"]))
        assert not any(path.exists() for path in group.paths.values())
    finally:
        child.kill()
        child.wait()
        child.stdout.close()


@needs_groups
def test_cpu_seconds_grow_for_a_busy_child(make_group):
    group = make_group()
    assert group.counts_cpu
    assert group.cpu_seconds() == 0.0
    busy = "import time\nwhile time.process_time() < 0.4:\n    pass\n"
    assert _python(busy, group).wait(timeout=30) == 0
    assert group.cpu_seconds() >= 0.35


@needs_groups
def test_close_kills_an_attached_process_and_removes_every_folder(make_group):
    group = make_group()
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        group.attach(sleeper.pid)
        assert group.pids() == [sleeper.pid]
        group.close()
        assert sleeper.wait(timeout=5) == -signal.SIGKILL
        assert not any(path.exists() for path in group.paths.values())
        group.close()  # a second close, with nothing left, does not raise either
    finally:
        sleeper.kill()
        sleeper.wait()


@pytest.mark.parametrize("may_write", [True, False])
def test_v2_offers_controllers_only_where_a_group_can_be_made_below_its_base(
    tmp_path, monkeypatch, may_write
):
    # A user without root in the root group finds controllers enabled there, and may make no
    # group below it: then no worker gets one, and the run's summary must not claim any.
    base = tmp_path / "root-group"
    base.mkdir()
    (base / "cgroup.subtree_control").write_text("memory pids cpu\n")
    monkeypatch.setattr(v2, "base", lambda: base)
    if not may_write:
        monkeypatch.setattr(v2.Path, "mkdir", _refused)
    assert v2.available() == (v2.CONTROLLERS if may_write else ())
    assert list(base.iterdir()) == [base / "cgroup.subtree_control"]  # the probe is gone


def _refused(*_args, **_kwargs):
    raise PermissionError("not yours to write")
