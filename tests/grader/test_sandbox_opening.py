"""A job's fork server is set up beside the job, and has the isolation the run asks for.

The set-up child copies the runtime and probes bubblewrap while the job reads its hidden tests
and waits for what to grade; a server started ahead on the copied runtime is used only when the
probe then chooses exactly its isolation.
"""

import os
import time

import pytest
from sandboxes import printed_at_load

from grader.sandbox import containment, runtime
from grader.sandbox.forkserver import ForkServer

pytestmark = []


def started_ahead(opening, seconds=30):
    """Start a server ahead as soon as the runtime is copied, as a job does; return it or None."""
    deadline = time.monotonic() + seconds
    while not opening.said and time.monotonic() < deadline:
        opening.start_ahead()
        time.sleep(0.002)
    opening.start_ahead()
    return opening.ahead


@pytest.mark.bwrap
def test_a_server_started_ahead_is_the_one_used_once_the_probe_chooses_its_isolation():
    with ForkServer.opening("auto") as opening:
        ahead = started_ahead(opening)
        assert ahead is not None and ahead.process is not None  # started before the verdict
        server = opening.ready()
        output = printed_at_load(server, "print('LOADED')")
    assert server is ahead
    assert server.isolation.mode == "bubblewrap"
    assert "LOADED" in output


@pytest.mark.bwrap
def test_a_server_started_ahead_serves_no_worker_when_the_probe_rejects_bubblewrap(monkeypatch):
    # The probe (in the set-up child, which this process forks) takes its time, then says
    # bubblewrap does not work here: the server already started inside it must never serve.
    monkeypatch.setattr(containment, "bubblewrap_works", lambda isolation: time.sleep(0.3) or False)
    with ForkServer.opening("auto") as opening:
        ahead = started_ahead(opening)
        assert ahead is not None and ahead.process is not None
        started = ahead.process.pid
        server = opening.ready()
        assert ahead.process is None and not os.path.exists(f"/proc/{started}")  # stopped
        output = printed_at_load(server, "print('LOADED')")
    assert server is not ahead
    assert server.isolation.mode == "process"
    assert "LOADED" in output


@pytest.mark.bwrap
@pytest.mark.parametrize("forbidden_by", ["opening", "variable"])
def test_no_server_is_started_ahead_where_bubblewrap_may_not_be_chosen(monkeypatch, forbidden_by):
    if forbidden_by == "variable":
        monkeypatch.setenv(containment.ISOLATION_VARIABLE, "process")
    with ForkServer.opening("process" if forbidden_by == "opening" else "auto") as opening:
        assert started_ahead(opening) is None
        assert opening.ready().isolation.mode == "process"


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
    # A job opens its fork server before it reads what to grade (grader/job.py), and may
    # start a server ahead on the copied runtime before it knows.
    with ForkServer.opening(opened_for) as opening:
        started_ahead(opening)
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
        deadline = time.monotonic() + 30
        while opening.outcome is None and time.monotonic() < deadline:
            opening.start_if_set_up()  # as a job calls it while it reads its tests
            time.sleep(0.01)
        for _ in range(3):  # after the report was read, its pipe is closed: never looked at
            opening.start_if_set_up()
        for _ in range(2):
            with pytest.raises(RuntimeError, match="bubblewrap is required"):
                opening.ready()
