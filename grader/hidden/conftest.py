"""Shared set-up of the hidden tests: the `submission` fixture (markers are in pytest.ini)."""

import pytest

from grader.plugin import PLUGIN_KEY
from grader.sandbox.session import SubmissionSession


@pytest.fixture
def submission(request: pytest.FixtureRequest) -> SubmissionSession | None:
    """The sandbox session of the submission being graded: `submission.call(scenario)`."""
    return request.config.stash[PLUGIN_KEY].current
