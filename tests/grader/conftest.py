"""Shared set-up of the grader's tests: a job's fork server in each isolation."""

import pytest

from grader.sandbox.forkserver import ForkServer


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
