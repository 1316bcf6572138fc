"""Shared set-up of the hidden tests: the `submission` fixture (markers are in pytest.ini)."""

import pytest

from grader.plugin import PLUGIN_KEY


@pytest.fixture
def submission(request):
    """The sandbox session of the submission being graded: `submission.call(scenario)`."""
    return request.config.stash[PLUGIN_KEY].current
