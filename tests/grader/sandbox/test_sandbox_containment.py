"""A worker sees only its runtime folder and scratch folder, has no network, and is not root."""

import importlib.util
import os
import socket
from pathlib import Path

import pytest
from host_expectations import expected_mode, slower
from process_trees import wait_for
from sandboxes import session_for

from grader.batch.run import RunSettings, hidden_tests, run_submissions
from grader.model import CodeUnit, Limits, Submission
from grader.paths import PROJECT_ROOT
from grader.sandbox.orphans import adopt_orphans
from grader.sandbox.problems import LoadFailure
from grader.sandbox.runtime import prepare_runtime

pytestmark = []

PROJECT = PROJECT_ROOT
REFERENCE_SOURCE = (PROJECT / "fixtures/submissions/correct/reference.py").read_text("utf-8")
SECRETS = (
    PROJECT / "grader/hidden/conftest.py",
    PROJECT / "grader/hidden/test_envelope.py",
    PROJECT / "solutions/bounded_results/07-invoke-tool.ipynb",
    PROJECT / "fixtures/submissions/correct/reference.py",
)


@pytest.fixture
def private_files(tmp_path):
    """A job input and another student's file, kept as the grader keeps them (owner only)."""
    tmp_path.chmod(0o700)
    job = tmp_path / "job-0.jsonl"
    job.write_text('{"key": 1, "units": "every student\'s code"}\n', encoding="utf-8")
    other = tmp_path / "other-student.py"
    other.write_text("def invoke_tool(request, tools): ...\n", encoding="utf-8")
    return job, other


def printed_at_load(server, source):
    """Load `source` in a worker and return what it printed."""
    source += "\ndef invoke_tool(request, tools, **options):\n    return {}\n"
    session = session_for(server, source, timeout=8.0, test_timeout=6.0)
    try:
        session.start()
    finally:
        session.stop()
    return session.take_output()


def try_to_read(paths):
    lines = ["import os"]
    for path in paths:
        lines.append(
            f"try:\n    open({str(path)!r}, 'rb').read(10)\n    print('READ', {str(path)!r})\n"
            f"except OSError:\n    print('DENIED', {str(path)!r})"
        )
    return "\n".join(lines)


@pytest.mark.bwrap
def test_the_strongest_isolation_here_is_the_one_this_host_offers(contained_server):
    assert contained_server.isolation.mode == expected_mode()


@pytest.mark.bwrap
def test_worker_cannot_read_hidden_tests_solutions_or_other_files(contained_server, private_files):
    paths = (*SECRETS, *private_files)
    output = printed_at_load(contained_server, try_to_read(paths))
    assert "READ" not in output
    assert output.count("DENIED") == len(paths)


@pytest.mark.bwrap
def test_worker_cannot_read_the_job_input_or_another_students_file(fork_server, private_files):
    output = printed_at_load(fork_server, try_to_read(private_files))
    assert output.count("DENIED") == 2, output


@pytest.mark.bwrap
def test_worker_runs_as_its_own_user_as_root_and_as_the_graders_own_without(fork_server):
    output = printed_at_load(fork_server, "import os\nprint('UID', os.getuid(), os.getgroups())\n")
    uid = int(output.split()[1])
    if os.geteuid() == 0:
        assert uid == fork_server.isolation.uid_for(0)
        assert "[]" in output
    else:  # no user to switch to: root of its own namespace, without capabilities, or ours
        assert uid == (0 if fork_server.isolation.private_mounts else os.geteuid())


@pytest.mark.bwrap
def test_worker_cannot_write_outside_its_scratch_folder(fork_server, tmp_path):
    out_folder = tmp_path / "grades"
    out_folder.mkdir()
    targets = (out_folder / "grades.csv", PROJECT / "grader" / "forged.py")
    source = "import os\nprint('SCRATCH', os.getcwd())\nopen('mine.txt', 'w').write('ok')\n"
    for target in targets:
        source += (
            f"try:\n    open({str(target)!r}, 'w').write('forged')\n    print('WROTE')\n"
            "except OSError:\n    print('REFUSED')\n"
        )
    output = printed_at_load(fork_server, source)
    assert "WROTE" not in output
    assert output.count("REFUSED") == len(targets)
    assert not any(target.exists() for target in targets)


@pytest.mark.bwrap
def test_worker_has_no_network(contained_server):
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(0.2)
        output = _connect_from_worker(contained_server, listener.getsockname()[1])
        with pytest.raises(TimeoutError):
            listener.accept()
    assert "NO NETWORK" in output
    assert "CONNECTED" not in output


def _connect_from_worker(server, port):
    source = (
        "import socket\ntry:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n    print('CONNECTED')\n"
        "except OSError as error:\n    print('NO NETWORK', type(error).__name__)\n"
    )
    return printed_at_load(server, source)


@pytest.mark.bwrap
def test_the_fallback_grades_the_reference_fully_and_labels_a_hang():
    reference = (PROJECT / "fixtures/submissions/correct/reference.py").read_text("utf-8")
    hang = (
        reference + "\ndef invoke_tool(request, tools, **options):\n    while True:\n        pass\n"
    )
    submissions = [
        Submission(name, f"{name}.py", "python", (CodeUnit(name, f"{name}.py", source),))
        for name, source in (("reference", reference), ("hang", hang))
    ]
    settings = RunSettings(
        jobs=2, limits=Limits(timeout=slower(2.0), test_timeout=slower(1.0)), isolation="process"
    )
    good, bad = run_submissions(submissions, settings)
    assert good.status == "completed"
    assert [o.status for o in good.outcomes] == ["passed"] * len(hidden_tests())
    assert bad.status == "timeout"
    assert {o.status for o in bad.outcomes} == {"timeout"}


@pytest.mark.bwrap
def test_a_fork_bomb_is_refused_and_leaves_nothing_behind(fork_server):
    source = (
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    )
    session = session_for(fork_server, source, timeout=8.0, test_timeout=1.0)
    adopt_orphans()  # as every grading job does, so killed forks are reaped, not left as zombies
    with pytest.raises(LoadFailure) as failure:
        session.start()
    session.stop()
    assert failure.value.status == "forbidden"
    assert "does not allow" in failure.value.reason
    if fork_server.isolation.uid is not None:
        # A fork the kill reached may still be exiting: nothing is left once it has had a moment.
        uid = fork_server.isolation.uid_for(0)
        wait_for(lambda: processes_of(uid) == [], slower(2.0))


def processes_of(uid):
    """Return the ids of the processes running as `uid`."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            lines = status.read_text().splitlines()
        except OSError:
            continue
        uids = next((line.split()[1:] for line in lines if line.startswith("Uid:")), [])
        if str(uid) in uids:
            found.append(status.parent.name)
    return found


@pytest.mark.bwrap
@pytest.mark.cgroups
def test_each_worker_runs_in_a_cgroup_of_its_own_that_is_removed_with_it(fork_server):
    session = session_for(fork_server, REFERENCE_SOURCE)
    session.start()
    group = session.worker.group
    try:
        assert group is not None
        assert len(group.pids()) == 1  # the worker itself, joined before any student code
        assert all(path.is_dir() for path in group.paths.values())
    finally:
        session.stop()
    assert not any(path.exists() for path in group.paths.values())


def test_the_runtime_copy_carries_bytecode_so_no_worker_compiles_it(tmp_path):
    runtime = prepare_runtime(tmp_path)
    sources = sorted(runtime.rglob("*.py"))
    assert sources
    for source in sources:
        compiled = Path(importlib.util.cache_from_source(str(source)))
        assert compiled.is_file(), source
        assert oct(compiled.stat().st_mode & 0o777) == oct(0o644)
