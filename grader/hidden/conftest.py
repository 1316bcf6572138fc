"""Shared set-up of the hidden tests: the `category` marker and the `submission` fixture."""

import pytest

from grader.plugin import PLUGIN_KEY


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "category(name): the one grading category of CONTRACT.md a hidden test counts for",
    )


@pytest.fixture
def submission(request):
    """The sandbox session of the submission being graded: `submission.call(scenario)`."""
    return request.config.stash[PLUGIN_KEY].current
