"""The job's fork server: every worker is forked fresh, and no worker reaches another or the server.

Workers of one job are forked one after another from the same warm parent, so each test here
lets one submission try to leave something for, or do something to, the next, and shows that
the next one finds nothing and grades as it would alone.
"""

import os
import select
import signal
import subprocess
import sys

import pytest
from sandboxes import REFERENCE, printed_at_load, session_for

from grader.hidden.probes import returns, scenario
from grader.paths import PROJECT_ROOT
from grader.sandbox.problems import LoadFailure, SandboxProblem
from grader.sandbox.server import ForkServer

pytestmark = []

PROJECT = PROJECT_ROOT
ROOT = os.geteuid() == 0


LEAVES_FILES = """
import os
for folder in ("/tmp", "/dev/shm", "."):
    path = os.path.join(folder, "left-for-the-next")
    with open(path, "w") as note:
        note.write("the answers")
    os.chmod(path, 0o666)
print("LEFT", sorted(os.listdir("/tmp")), sorted(os.listdir("/dev/shm")), os.getcwd())
"""
LOOKS_FOR_FILES = """
import os
print("FOUND", [f for d in ("/tmp", "/dev/shm", ".") for f in os.listdir(d)])
"""


@pytest.mark.bwrap
def test_a_worker_finds_empty_scratch_tmp_and_shared_memory_whatever_the_last_one_left(
    contained_server,
):
    left = printed_at_load(contained_server, LEAVES_FILES, serial=0)
    assert "left-for-the-next" in left  # the first worker could write in all three
    found = printed_at_load(contained_server, LOOKS_FOR_FILES, serial=1)
    assert "FOUND []" in found, found


@pytest.mark.bwrap
def test_nothing_a_worker_writes_reaches_the_hosts_disk(contained_server, tmp_path):
    printed_at_load(contained_server, LEAVES_FILES)
    assert not list(tmp_path.parent.glob("**/left-for-the-next"))
    assert not os.path.exists("/tmp/left-for-the-next")
    assert not os.path.exists("/dev/shm/left-for-the-next")


@pytest.mark.bwrap
def test_a_worker_cannot_take_back_root(fork_server):
    output = printed_at_load(
        fork_server,
        "import os\n"
        "attempts = (lambda: os.setuid(0), lambda: os.setgid(0), lambda: os.chown('.', 0, 0))\n"
        "for attempt in attempts:\n"
        "    try:\n"
        "        attempt()\n"
        "        print('GAINED')\n"
        "    except OSError:\n"
        "        print('REFUSED')\n",
    )
    if ROOT:  # without root there is no root to take back
        assert output.count("REFUSED") == 3 and "GAINED" not in output, output


KILLS_EVERYTHING = """
import os, signal
for target in [-1, *range(1, 200)]:
    if target == os.getpid():
        continue
    try:
        os.kill(target, signal.SIGKILL)
    except OSError:
        pass
print("STILL HERE")
"""


@pytest.mark.bwrap
@pytest.mark.skipif(not ROOT, reason="each submission has a user of its own only as root")
def test_a_worker_that_signals_every_process_harms_no_one_else(contained_server):
    assert "STILL HERE" in printed_at_load(contained_server, KILLS_EVERYTHING, serial=0)
    assert contained_server.process.poll() is None  # the fork server lives on
    second = session_for(contained_server, REFERENCE, serial=1)
    try:
        observation = second.call(scenario(returns({"n": 1})))
    finally:
        second.stop()
    assert observation.envelope == {"id": "req-7", "ok": True, "value": {"n": 1}, "error": None}


@pytest.mark.bwrap
def test_a_fork_server_that_died_is_started_again_for_the_next_worker(fork_server):
    doomed = session_for(fork_server, REFERENCE, serial=0)
    doomed.start()
    os.killpg(fork_server.process.pid, signal.SIGKILL)  # as the machine might
    fork_server.process.wait()
    # The worker dies with the server's namespace a moment later: its idle reply pipe then
    # reads as ended (on a busy machine, a request sent sooner could still be answered).
    assert select.select([doomed.worker.reply_read], [], [], 10)[0]
    with pytest.raises(SandboxProblem) as problem:
        doomed.call(scenario(returns({"n": 1})))
    doomed.stop()
    assert problem.value.status == "crash"  # its worker died with the server
    fresh = session_for(fork_server, REFERENCE, serial=1)
    try:
        observation = fresh.call(scenario(returns({"n": 2})))
    finally:
        fresh.stop()
    assert observation.envelope["value"] == {"n": 2}


@pytest.mark.bwrap
def test_how_a_worker_ended_is_reported_by_its_exit_status_or_signal(fork_server):
    # The seccomp filter refuses every signal a worker sends, its own SIGABRT too: the C
    # library's abort then ends the process with a fault (grader/sandbox/seccomp.py).
    aborted = signal.SIGSEGV if fork_server.isolation.seccomp is not None else signal.SIGABRT
    for source, expected in (
        ("import os\nos._exit(3)\n", "(exit 3)"),
        ("import os\nos.abort()\n", f"(signal {int(aborted)})"),
    ):
        session = session_for(fork_server, source)
        with pytest.raises(LoadFailure) as failure:
            session.start()
        assert failure.value.status == "crash"
        assert expected in failure.value.reason, failure.value.reason


LEAVES_NO_ZOMBIE = """
import os, sys, time
sys.path.insert(0, sys.argv[1])
from grader.sandbox.orphans import adopt_orphans
from grader.sandbox.server import ForkServer
adopt_orphans()  # as a grading job does: orphans of its sandboxes come to it
with ForkServer.open(sys.argv[2]):
    pass
time.sleep(0.3)
zombies = []
for task in os.listdir(f"/proc/{os.getpid()}/task"):
    for pid in open(f"/proc/{os.getpid()}/task/{task}/children").read().split():
        stat = open(f"/proc/{pid}/stat").read()
        if stat[stat.rfind(")") + 2] == "Z":
            zombies.append(stat[: stat.rfind(")") + 1])
print(zombies)
"""


@pytest.mark.bwrap
@pytest.mark.parametrize("mode", ["auto", "process"])
def test_a_job_is_left_no_zombie_by_its_sandbox(mode):
    done = subprocess.run(
        [sys.executable, "-c", LEAVES_NO_ZOMBIE, str(PROJECT), mode],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "[]"


PRINTS_ITS_PROCESSORS = "import os\nprint('PROCESSORS', sorted(os.sched_getaffinity(0)))\n"


@pytest.mark.bwrap
@pytest.mark.parametrize("isolation", ["auto", "process"])
def test_a_worker_keeps_to_the_processor_its_job_chose_and_roams_when_none_was(isolation):
    offered = sorted(os.sched_getaffinity(0))
    with ForkServer.open(isolation, worker_core=offered[-1]) as server:
        kept = printed_at_load(server, PRINTS_ITS_PROCESSORS)
    with ForkServer.open(isolation) as server:
        roaming = printed_at_load(server, PRINTS_ITS_PROCESSORS)
    assert f"PROCESSORS {[offered[-1]]}" in kept, kept
    assert f"PROCESSORS {offered}" in roaming, roaming


JOB_MODULES = "grader.job.main, grader.job.grading, grader.job.suite"  # all a job imports


def test_a_job_starts_its_fork_server_without_importing_the_workers_own_code():
    # The guard, the loop and the seal are the worker's: a job that imported them would pay
    # for them at every start (about 40 ms) and hold code it never runs.
    imported = subprocess.run(
        [sys.executable, "-c", f"import sys, {JOB_MODULES}; print(sorted(sys.modules))"],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for module in ("guard", "loop", "seal", "forkserver"):
        assert f"'grader.sandbox.inside.{module}'" not in imported
    assert "'grader.sandbox.inside.protocol'" in imported  # where CONTROL_FD is declared
