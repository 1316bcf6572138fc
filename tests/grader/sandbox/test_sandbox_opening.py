"""A job's fork server is set up beside the job, and has the isolation the run asks for.

The set-up child copies the runtime and probes bubblewrap while the job reads its hidden tests
and waits for what to grade; the server then starts with the isolation the run asks for.
"""

import os

import pytest
from sandboxes import printed_at_load

from grader.sandbox import containment, runtime
from grader.sandbox.server import ForkServer

pytestmark = []


@pytest.mark.bwrap
def test_a_job_sets_its_fork_server_up_in_a_child_process_while_it_goes_on(monkeypatch, tmp_path):
    said = tmp_path / "prepared-by"
    prepare = runtime.prepare_runtime

    def prepare_and_say_who(folder):
        said.write_text(str(os.getpid()), encoding="ascii")
        return prepare(folder)

    monkeypatch.setattr(runtime, "prepare_runtime", prepare_and_say_who)
    with ForkServer.opening("auto") as opening:
        server = opening.ready()
        output = printed_at_load(server, "print('LOADED')")
    assert int(said.read_text(encoding="ascii")) != os.getpid()
    # The user ids are the job's own block, not one the set-up child's process id would pick.
    assert server.isolation.uid == containment.worker_uid()
    assert "LOADED" in output


@pytest.mark.bwrap
@pytest.mark.parametrize(
    ("opened_for", "asked", "chosen"),
    [
        ("auto", "auto", "bubblewrap"),
        ("auto", "bubblewrap", "bubblewrap"),
        ("auto", "process", "process"),  # bubblewrap works, but the run forbids it
        ("process", "auto", "bubblewrap"),  # the fallback was forced, the run does not force it
        ("process", "bubblewrap", "bubblewrap"),
        ("bubblewrap", "process", "process"),
    ],
)
def test_a_fork_server_opened_before_the_run_is_known_has_the_isolation_the_run_asks_for(
    opened_for, asked, chosen
):
    # A job opens its fork server before it reads what to grade (grader/job/main.py).
    with ForkServer.opening(opened_for) as opening:
        opening.require(asked)
        server = opening.ready()
        output = printed_at_load(server, "print('LOADED')")
    assert server.isolation.mode == chosen
    assert "LOADED" in output


def test_a_run_that_requires_bubblewrap_where_it_cannot_run_fails_though_opened_unasked(
    monkeypatch,
):
    monkeypatch.setenv(containment.ISOLATION_VARIABLE, "process")
    with ForkServer.opening("auto") as opening:
        opening.require("bubblewrap")
        with pytest.raises(RuntimeError, match="bubblewrap is required but GRADER_ISOLATION"):
            opening.ready()


def test_a_set_up_that_fails_says_why_in_the_job(monkeypatch):
    monkeypatch.setenv(containment.ISOLATION_VARIABLE, "process")
    required = pytest.raises(RuntimeError, match="bubblewrap is required but GRADER_ISOLATION")
    with required, ForkServer.open("bubblewrap"):
        pass


def test_a_failed_set_up_is_read_once_and_said_again_whenever_the_server_is_asked_for(
    monkeypatch,
):
    monkeypatch.setenv(containment.ISOLATION_VARIABLE, "process")
    with ForkServer.opening("bubblewrap") as opening:
        for _ in range(3):  # after the report was read, its pipe is closed: never looked at
            with pytest.raises(RuntimeError, match="bubblewrap is required"):
                opening.ready()
