"""Landlock (grader/sandbox/inside/landlock.py): what a confined process still reaches, and not.

Each test runs a real child, once confined and once not (its twin), so a rule the kernel stops
enforcing fails the test. What the kernel offers here is said by the host the tests run on
(tests/host_expectations.py: CI's machine has ABI 7; the cgroup-v2 VM has Debian 12's).
"""

import json
import secrets
import socket
import subprocess
import sys
import textwrap

import pyseccomp
import pytest
from host_expectations import expected_landlock
from sandboxes import printed_at_load

from grader.paths import PROJECT_ROOT
from grader.sandbox import containment
from grader.sandbox.inside import landlock
from grader.sandbox.runtime import prepare_runtime
from grader.sandbox.server import ForkServer

pytestmark = []

PROJECT = PROJECT_ROOT
SECRETS = (
    PROJECT / "grader/hidden/test_envelope.py",
    PROJECT / "solutions/bounded_results/07-invoke-tool.ipynb",
    PROJECT / "fixtures/submissions/correct/reference.py",
)
# A child that tries each kind of reach and reports what it got, by errno name.
REACHES = """
import errno, json, os, socket, sys
def outcome(call):
    try:
        call()
        return "ok"
    except OSError as error:
        return errno.errorcode[error.errno]
def tcp():
    socket.create_connection(("127.0.0.1", PORT), timeout=2).close()
def abstract():
    with socket.socket(socket.AF_UNIX) as client:
        client.connect(ABSTRACT)
def write_scratch():
    with open(os.path.join(SCRATCH, "mine"), "w") as mine:
        mine.write("ok")
def write_outside():
    with open(os.path.join(OUTSIDE, "forged"), "w") as forged:
        forged.write("forged")
if CONFINE:
    sys.path.insert(0, RUNTIME)
    from grader.sandbox.inside import landlock
    landlock.restrict(READ, [SCRATCH])
print(json.dumps({
    "stdlib": outcome(lambda: __import__("decimal")),
    "read_secret": outcome(lambda: open(SECRET, "rb").read(1)),
    "list_root": outcome(lambda: os.listdir("/")),
    "read_passwd": outcome(lambda: open("/etc/passwd").read(1)),
    "write_scratch": outcome(write_scratch),
    "write_outside": outcome(write_outside),
    "tcp": outcome(tcp),
    "signal_parent": outcome(lambda: os.kill(os.getppid(), 0)),
    "abstract_socket": outcome(abstract),
}))
"""


@pytest.fixture
def reach(tmp_path):
    """Run the REACHES child, confined or not, beside a listening port and abstract socket."""
    scratch, outside = tmp_path / "scratch", tmp_path / "outside"
    runtime = str(prepare_runtime(tmp_path / "runtime"))  # the worker's copy, not the project
    scratch.mkdir()
    outside.mkdir()
    name = b"\0grader-landlock-test-" + secrets.token_hex(4).encode()
    with (
        socket.create_server(("127.0.0.1", 0)) as port,
        socket.socket(socket.AF_UNIX) as abstract,
    ):
        abstract.bind(name)
        abstract.listen()

        def run(confine: bool) -> dict[str, str]:
            read = [*containment.SYSTEM_FOLDERS, str(containment.python_installation()), runtime]
            values = dict(
                RUNTIME=runtime, READ=read, SCRATCH=str(scratch), OUTSIDE=str(outside),
                SECRET=str(SECRETS[0]), PORT=port.getsockname()[1], ABSTRACT=name,
                CONFINE=confine,
            )  # fmt: skip
            prelude = "".join(f"{key} = {value!r}\n" for key, value in values.items())
            command = [containment.python_executable(), "-I", "-c", prelude + REACHES]
            done = subprocess.run(command, capture_output=True, text=True, timeout=30)
            assert done.returncode == 0, done.stderr
            return json.loads(done.stdout)

        yield run


def test_the_kernel_offers_the_landlock_this_host_should():
    assert landlock.abi() >= expected_landlock()


def test_the_unconfined_twin_reaches_everything(reach):
    assert set(reach(confine=False).values()) == {"ok"}


def test_a_confined_process_reads_only_what_it_was_given_and_writes_only_its_scratch(reach):
    got = reach(confine=True)
    assert got["stdlib"] == got["write_scratch"] == "ok"
    denied = ("read_secret", "list_root", "read_passwd", "write_outside")
    assert {what: got[what] for what in denied} == dict.fromkeys(denied, "EACCES")


def test_a_confined_process_connects_to_no_tcp_port_from_abi_4(reach):
    # Below ABI 4 Landlock holds no port, and the Isolation line claims none (seccomp does).
    expected = "EACCES" if landlock.abi() >= landlock.NET_SINCE else "ok"
    assert reach(confine=True)["tcp"] == expected


def test_a_confined_process_signals_nothing_beyond_itself_from_abi_6(reach):
    got = reach(confine=True)
    expected = "EPERM" if landlock.abi() >= landlock.SCOPE_SINCE else "ok"
    assert (got["signal_parent"], got["abstract_socket"]) == (expected, expected)


def test_each_version_handles_every_file_right_it_knows():
    assert landlock.handled_files(1) == (1 << 13) - 1
    assert landlock.handled_files(2) == landlock.handled_files(1) | landlock.REFER
    assert landlock.handled_files(3) == landlock.handled_files(2) | landlock.TRUNCATE
    assert landlock.handled_files(5) == landlock.handled_files(3) | landlock.IOCTL_DEV


def test_without_landlock_in_the_kernel_restrict_refuses_and_abi_says_none():
    # What a container whose seccomp profile predates Landlock sees: ENOSYS for its calls.
    code = f"""
    import errno, json, sys
    import pyseccomp
    sys.path.insert(0, {str(PROJECT)!r})
    rules = pyseccomp.SyscallFilter(defaction=pyseccomp.ALLOW)
    rules.add_rule(pyseccomp.ERRNO(errno.ENOSYS), "landlock_create_ruleset")
    rules.load()
    from grader.sandbox.inside import landlock
    try:
        landlock.restrict(["/usr"], ["/tmp"])
        refused = None
    except OSError as error:
        refused = str(error)
    print(json.dumps({{"abi": landlock.abi(), "refused": refused}}))
    """
    assert pyseccomp is not None
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"abi": 0, "refused": "[Errno 38] Landlock is not available"}


def _try_to_read(paths):
    lines = []
    for path in paths:
        lines.append(
            f"try:\n    open({str(path)!r}, 'rb').read(10)\n    print('READ', {str(path)!r})\n"
            f"except OSError:\n    print('DENIED', {str(path)!r})"
        )
    return "\n".join(lines)


@pytest.mark.bwrap
def test_every_worker_is_kept_from_the_projects_files_in_every_mode(fork_server):
    assert fork_server.isolation.landlock == landlock.abi() > 0
    output = printed_at_load(fork_server, _try_to_read(SECRETS))
    assert output.count("DENIED") == len(SECRETS), output


@pytest.mark.bwrap
def test_a_fallback_worker_without_landlock_reads_the_projects_files(tmp_path):
    """The twin of the test above: without Landlock the fallback leaves the files readable."""
    isolation = containment.Isolation(
        "process", str(prepare_runtime(tmp_path)), containment.worker_uid(), None, landlock=0
    )
    server = ForkServer(isolation)
    try:
        output = printed_at_load(server, _try_to_read(SECRETS))
    finally:
        server.close()
    assert output.count("READ") == len(SECRETS), output
