"""The kernel's part of the sandbox: seccomp programs under bubblewrap, a worker's own mounts.

These run real children (as root, like CI): nothing is mocked, so each test fails if the kernel
stops enforcing what it states. The cgroups have tests of their own (test_sandbox_cgroups.py).
"""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pyseccomp
import pytest

from grader.paths import PROJECT_ROOT
from grader.sandbox import containment, seccomp
from grader.sandbox.runtime import prepare_runtime

pytestmark = []

REPO = PROJECT_ROOT
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
    program = seccomp.worker_program()
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


@pytest.mark.bwrap
def test_the_program_refuses_keyrings_sockets_memfd_and_namespaces():
    code = f"NUMBERS = {_numbers('keyctl', 'unshare')!r}\n" + ESCAPES
    done = _sandboxed(code, seccomp.worker_program())
    assert _report(done) == dict.fromkeys(("keyctl", "socket", "memfd_create", "unshare"), "EPERM")


@pytest.mark.bwrap
def test_the_same_calls_succeed_without_the_filter():
    # The control for the test above: the refusals come from the filter, not from bubblewrap.
    code = f"NUMBERS = {_numbers('keyctl', 'unshare')!r}\n" + ESCAPES
    report = _report(_sandboxed(code, None))
    assert "EPERM" not in report.values(), report


@pytest.mark.bwrap
def test_the_program_refuses_every_listed_syscall_whatever_the_arguments():
    # With the filter these never reach the kernel proper, so zero arguments are safe to pass.
    numbers = _numbers(*seccomp.DENIED, "clone3")
    code = f"print(json.dumps({{name: raw(nr) for name, nr in {numbers!r}.items()}}))"
    report = _report(_sandboxed(code, seccomp.worker_program()))
    assert report == {**dict.fromkeys(seccomp.DENIED, "EPERM"), "clone3": "ENOSYS"}


@pytest.mark.bwrap
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
        seccomp.worker_program(),
    )
    assert _report(done) == {"re": ["aa"], "shown": True, "memory": "MemoryError"}
    assert "logged after the filter" in done.stderr


@pytest.mark.bwrap
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
        seccomp.worker_program(),
    )
    assert _report(done) == {
        "handler": "EPERM",
        "ignore": "EPERM",
        "thread": "refused",
        "fork": "EPERM",
        "exec": "EPERM",
        "clone3": "ENOSYS",
    }


@pytest.mark.bwrap
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
    code = f"PROGRAM = {seccomp.worker_program().hex()!r}\n" + code
    assert _report(_sandboxed(code, None)) == {"fired": [True]}


@pytest.mark.bwrap
def test_install_raises_when_the_kernel_refuses_the_program():
    code = """
from grader.sandbox.inside.syscalls import install
print(json.dumps([outcome(lambda: install(program)) for program in (b"", bytes(8))]))
"""
    assert _report(_sandboxed(code, None)) == ["EINVAL", "EINVAL"]


# What a worker does to itself as the fork server forks it (grader/sandbox/inside/syscalls.py)


def _in_user_namespace(code: str, tmp_path: Path) -> dict:
    """Run `code` where a fork server runs without root: root of its own user namespace.

    The command is the grader's own (grader.sandbox.containment) for a grader without root.
    """
    isolation = containment.Isolation("bubblewrap", str(prepare_runtime(tmp_path)))
    command = containment.forkserver_command(isolation, PRELUDE + textwrap.dedent(code))
    return _report(subprocess.run(command, capture_output=True, text=True, timeout=30))


@pytest.mark.bwrap
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


@pytest.mark.bwrap
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
