"""The kernel's part of the sandbox: seccomp programs under bubblewrap, and cgroup v1 limits.

These run real children (as root, like CI): nothing is mocked, so each test fails if the kernel
stops enforcing what it states.
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

import pyseccomp
import pytest

from grader.sandbox import cgroups, containment, syscalls
from grader.sandbox.runtime import prepare_runtime

REPO = Path(__file__).resolve().parents[2]
MIB = 1 << 20

# What a child needs to make raw system calls by number and report them by errno name.
PRELUDE = f"""
import ctypes, errno, json, os, sys
sys.path.insert(0, {str(REPO)!r})
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def raw(nr, *args):
    args = [ctypes.c_long(a) for a in args] + [ctypes.c_long(0)] * (6 - len(args))
    if libc.syscall(ctypes.c_long(nr), *args) != -1:
        return "ok"
    return errno.errorcode[ctypes.get_errno()]

def outcome(call):
    try:
        call()
        return "ok"
    except OSError as error:
        return errno.errorcode[error.errno]
"""


def _numbers(*names: str) -> dict[str, int]:
    return {name: pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name) for name in names}


def _sandboxed(code: str, program: bytes | None) -> subprocess.CompletedProcess:
    """Run `code` in Python under a minimal bubblewrap, after it applied `program` to itself.

    As a worker does: the fork server runs unfiltered, and each worker installs the program
    before any student code.
    """
    command = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    command += ["--unshare-pid", "--die-with-parent"]
    install = ""
    if program is not None:
        install = (
            "from grader.sandbox.inside.syscalls import install\n"
            f"install(bytes.fromhex({program.hex()!r}))\n"
        )
    command += [sys.executable, "-I", "-c", PRELUDE + install + textwrap.dedent(code)]
    return subprocess.run(command, capture_output=True, text=True, timeout=30)


def _report(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_the_program_is_built_on_this_machine():
    program = syscalls.worker_program()
    assert isinstance(program, bytes)
    assert program and len(program) % 8 == 0  # whole BPF instructions


ESCAPES = """
import socket
print(json.dumps({
    "keyctl": raw(NUMBERS["keyctl"], 0, -3, 0),  # KEYCTL_GET_KEYRING_ID of the session keyring
    "socket": outcome(lambda: socket.socket(socket.AF_UNIX).close()),
    "memfd_create": outcome(lambda: os.close(os.memfd_create("hidden"))),
    "unshare": raw(NUMBERS["unshare"], 0),
}))
"""


def test_the_program_refuses_keyrings_sockets_memfd_and_namespaces():
    code = f"NUMBERS = {_numbers('keyctl', 'unshare')!r}\n" + ESCAPES
    done = _sandboxed(code, syscalls.worker_program())
    assert _report(done) == dict.fromkeys(("keyctl", "socket", "memfd_create", "unshare"), "EPERM")


def test_the_same_calls_succeed_without_the_filter():
    # The control for the test above: the refusals come from the filter, not from bubblewrap.
    code = f"NUMBERS = {_numbers('keyctl', 'unshare')!r}\n" + ESCAPES
    report = _report(_sandboxed(code, None))
    assert "EPERM" not in report.values(), report


def test_the_program_refuses_every_listed_syscall_whatever_the_arguments():
    # With the filter these never reach the kernel proper, so zero arguments are safe to pass.
    numbers = _numbers(*syscalls.DENIED, "clone3")
    code = f"print(json.dumps({{name: raw(nr) for name, nr in {numbers!r}.items()}}))"
    report = _report(_sandboxed(code, syscalls.worker_program()))
    assert report == {**dict.fromkeys(syscalls.DENIED, "EPERM"), "clone3": "ENOSYS"}


def test_interpreter_works_normally_under_the_program():
    done = _sandboxed(
        """
        import json, logging, re, traceback
        logging.basicConfig()
        logging.getLogger("late").warning("logged after the filter")
        try:
            raise KeyError("inner")
        except KeyError:
            shown = traceback.format_exc()
        try:
            bytearray(1 << 62)
            memory = "no error"
        except MemoryError:
            memory = "MemoryError"
        print(json.dumps({"re": re.findall("a+", "caab"), "shown": "KeyError" in shown,
                          "memory": memory}))
        """,
        syscalls.worker_program(),
    )
    assert _report(done) == {"re": ["aa"], "shown": True, "memory": "MemoryError"}
    assert "logged after the filter" in done.stderr


def test_the_program_refuses_signal_handlers_threads_and_processes():
    numbers = _numbers("clone3")
    done = _sandboxed(
        f"""
        import signal, threading
        def thread():
            try:
                threading.Thread(target=print).start()
                return "ok"
            except RuntimeError:
                return "refused"
        print(json.dumps({{
            "handler": outcome(lambda: signal.signal(signal.SIGALRM, lambda *_: None)),
            "ignore": outcome(lambda: signal.signal(signal.SIGTERM, signal.SIG_IGN)),
            "thread": thread(),
            "fork": outcome(lambda: os.fork() or os._exit(0)),
            "exec": outcome(lambda: os.execv("/bin/true", ["true"])),
            "clone3": raw({numbers["clone3"]}),
        }}))
        """,
        syscalls.worker_program(),
    )
    assert _report(done) == {
        "handler": "EPERM",
        "ignore": "EPERM",
        "thread": "refused",
        "fork": "EPERM",
        "exec": "EPERM",
        "clone3": "ENOSYS",
    }


def test_a_handler_installed_before_the_program_still_runs():
    # A handler the interpreter set before the filter keeps working: returning from a handler
    # is still allowed.
    code = """
import signal, time
fired = []
signal.signal(signal.SIGALRM, lambda *_: fired.append(True))
from grader.sandbox.inside.syscalls import install
install(bytes.fromhex(PROGRAM))
signal.setitimer(signal.ITIMER_REAL, 0.05)
deadline = time.monotonic() + 2
while not fired and time.monotonic() < deadline:
    time.sleep(0.01)
print(json.dumps({"fired": fired}))
"""
    code = f"PROGRAM = {syscalls.worker_program().hex()!r}\n" + code
    assert _report(_sandboxed(code, None)) == {"fired": [True]}


def test_install_raises_when_the_kernel_refuses_the_program():
    code = """
from grader.sandbox.inside.syscalls import install
print(json.dumps([outcome(lambda: install(program)) for program in (b"", bytes(8))]))
"""
    assert _report(_sandboxed(code, None)) == ["EINVAL", "EINVAL"]


# cgroups


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
    command = [sys.executable, "-I", "-c", PRELUDE + textwrap.dedent(code)]
    return subprocess.Popen(command, preexec_fn=group.attach_self, text=True, **options)


def test_every_controller_is_usable_here():
    assert cgroups.available() == ("memory", "pids", "cpu", "cpuacct")


def test_create_writes_the_limits(make_group):
    group = make_group(64 * MIB, 4)
    memory = group.paths["memory"]
    assert int((memory / "memory.limit_in_bytes").read_text()) == 64 * MIB
    assert int((memory / "memory.memsw.limit_in_bytes").read_text()) == 64 * MIB
    assert int((memory / "memory.swappiness").read_text()) == 0
    assert (group.paths["pids"] / "pids.max").read_text().strip() == "4"
    assert (group.paths["cpu"] / "cpu.shares").read_text().strip() == "1024"


def test_create_refuses_a_name_already_in_use(make_group):
    group = make_group()
    assert cgroups.WorkerGroup.create(group.name, 64 * MIB, 4) is None
    assert all(path.exists() for path in group.paths.values())  # the first one is untouched


def test_attach_self_moves_the_child_into_every_group(make_group):
    group = make_group()
    child = _python("print(open('/proc/self/cgroup').read())", group, stdout=subprocess.PIPE)
    out, _ = child.communicate(timeout=10)
    lines = dict(line.split(":", 2)[1:] for line in out.split())
    for controller in cgroups.CONTROLLERS:
        assert lines[controller].endswith(f"/grader/{group.name}")


FILLERS = {
    "shm file": "target = open(SHM, 'wb', buffering=0)\nput = target.write",
    "memfd": "fd = os.memfd_create('fill')\nput = lambda chunk: os.write(fd, chunk)",
    "shared mmap": (
        "import mmap\narea = mmap.mmap(-1, 200 * MIB)\n"
        "def put(chunk, at=[0]):\n    area[at[0]:at[0] + MIB] = chunk\n    at[0] += MIB"
    ),
    "heap": "kept = []\nput = kept.append",
}


@pytest.mark.parametrize("filler", list(FILLERS))
def test_memory_limit_stops_a_child_filling_200_mib(make_group, filler):
    group = make_group(64 * MIB)
    shm = Path(f"/dev/shm/test-sandbox-kernel-{group.name}")
    code = f"MIB = {MIB}\nSHM = {str(shm)!r}\n{FILLERS[filler]}\n"
    code += "for count in range(1, 201):\n    put(b'x' * MIB)\n    print(count, flush=True)\n"
    try:
        child = _python(code, group, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, _ = child.communicate(timeout=20)
        filled = int(out.split()[-1]) if out.split() else 0
        assert child.returncode == -signal.SIGKILL
        assert filled < 64
        assert group.memory_exhausted()
        if filler == "shm file":  # the file outlives its writer, and stays charged to the group
            usage = int((group.paths["memory"] / "memory.usage_in_bytes").read_text())
            assert usage >= 32 * MIB
    finally:
        shm.unlink(missing_ok=True)


def test_an_honest_child_is_not_reported_out_of_memory(make_group):
    group = make_group(64 * MIB)
    child = _python("kept = b'x' * (8 * 1024 * 1024)", group)
    assert child.wait(timeout=10) == 0
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
        report = json.loads(_line(child.stdout, 10))
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


def test_cpu_seconds_grow_for_a_busy_child(make_group):
    group = make_group()
    assert group.cpu_seconds() == 0.0
    busy = "import time\nwhile time.process_time() < 0.4:\n    pass\n"
    assert _python(busy, group).wait(timeout=10) == 0
    assert group.cpu_seconds() >= 0.35


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


# What a worker does to itself as the fork server forks it (grader/sandbox/inside/syscalls.py)


def _in_user_namespace(code: str, tmp_path: Path) -> dict:
    """Run `code` where a fork server runs without root: root of its own user namespace.

    The command is the grader's own (grader.sandbox.containment) for a grader without root.
    """
    isolation = containment.Isolation("bubblewrap", str(prepare_runtime(tmp_path)))
    command = containment.forkserver_command(isolation, PRELUDE + textwrap.dedent(code))
    return _report(subprocess.run(command, capture_output=True, text=True, timeout=30))


def test_drop_capabilities_leaves_none_even_to_a_root_of_its_own_namespace(tmp_path):
    report = _in_user_namespace(
        """
        from grader.sandbox.inside import syscalls
        def capabilities():
            lines = open("/proc/self/status").read().splitlines()
            return {line.split(":")[0]: int(line.split()[1], 16)
                     for line in lines if line.startswith("Cap")}
        before = capabilities()
        syscalls.drop_capabilities()
        print(json.dumps({"before": before["CapEff"] > 0, "after": capabilities(),
                          "mount": outcome(syscalls.private_mounts)}))
        """,
        tmp_path,
    )
    assert report["before"]
    assert report["after"] == dict.fromkeys(("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"), 0)
    assert report["mount"] == "EPERM"


def test_private_mounts_give_fresh_size_limited_folders_that_the_parent_never_sees(tmp_path):
    report = _in_user_namespace(
        """
        from grader.sandbox.inside import syscalls
        open("/tmp/before", "w").close()
        reading, writing = os.pipe()
        child = os.fork()
        if child == 0:
            syscalls.private_mounts()
            seen = {folder: os.listdir(folder) for folder in ("/tmp", "/dev/shm", "/scratch")}
            try:
                with open("/tmp/big", "wb") as big:
                    big.write(bytes(32 << 20))  # twice the size of the private /tmp
                filled = "ok"
            except OSError as error:
                filled = errno.errorcode[error.errno]
            open("/scratch/left", "w").close()
            os.write(writing, json.dumps({"seen": seen, "filled": filled}).encode())
            os._exit(0)
        os.close(writing)
        os.waitpid(child, 0)
        print(json.dumps({"child": json.loads(os.read(reading, 4096)),
                          "parent_tmp": sorted(os.listdir("/tmp")),
                          "parent_scratch": os.listdir("/scratch")}))
        """,
        tmp_path,
    )
    assert report == {
        "child": {"seen": {"/tmp": [], "/dev/shm": [], "/scratch": []}, "filled": "ENOSPC"},
        "parent_tmp": ["before"],
        "parent_scratch": [],
    }
