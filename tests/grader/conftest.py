"""Shared set-up of the grader's tests: a job's fork server in each isolation."""

import os

import psutil
import pytest

from grader.sandbox.server import ForkServer


@pytest.fixture(autouse=True, scope="module")
def _collect_orphaned_workers():
    """After each module, collect the ended workers orphaned to this test process.

    Once a test has made this process a subreaper (grader.sandbox.orphans.adopt_orphans,
    as the visible checks do), a worker a fork server left behind in a later module comes here
    and stays a zombie of a worker user, which a later module's count of such processes would
    blame on its own batch. Only ended processes of other users are collected: never a child
    of this process's own user, whose exit status a test may still be waiting for.
    """
    yield
    for child in psutil.Process().children():
        try:
            if child.status() == psutil.STATUS_ZOMBIE and child.uids().real != os.getuid():
                os.waitpid(child.pid, os.WNOHANG)
        except (psutil.Error, ChildProcessError):
            pass


@pytest.fixture(scope="module", params=["auto", "process"])
def fork_server(request):
    """A job's fork server in each isolation: bubblewrap where it works, and the fallback."""
    with ForkServer.open(request.param) as server:
        yield server


@pytest.fixture(scope="module")
def contained_server():
    """A job's fork server with the strongest isolation here (bubblewrap, in CI)."""
    with ForkServer.open("auto") as server:
        yield server
