"""Builders shared by the sandbox tests: one submission's session on a job's fork server."""

from grader.model import CodeUnit
from grader.sandbox.session import Limits, SubmissionSession


def session_for(server, source, serial=0, **limits):
    """Return a session for one submission made of `source`, with `limits` over the defaults."""
    unit = CodeUnit("submission", "submission.py", source)
    return SubmissionSession([unit], Limits(**limits), server, serial)
