"""Builders shared by the sandbox tests: one submission's session on a job's fork server."""

from pathlib import Path

from host_expectations import slower

from grader.model import CodeUnit, Limits
from grader.sandbox.session import SubmissionSession

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "submissions"
REFERENCE = (FIXTURES / "correct" / "reference.py").read_text(encoding="utf-8")


def session_for(server, source, serial=0, **limits):
    """Return a session for one submission made of `source`, with `limits` over the defaults.

    Its time limits grow with the host's slowness (tests/host_expectations.py).
    """
    unit = CodeUnit("submission", "submission.py", source)
    limits = {"timeout": Limits.timeout, "test_timeout": Limits.test_timeout, **limits}
    for name in ("timeout", "test_timeout"):
        limits[name] = slower(limits[name])
    return SubmissionSession([unit], Limits(**limits), server, serial)


def reference_with(code):
    """Return the reference, then `code`, which may call the reference's own as `_honest`."""
    return f"{REFERENCE}\n_honest = invoke_tool\n{code}"


def printed_at_load(server, source, serial=0):
    """Load `source` (with a trivial invoke_tool) in a fresh worker; return what it printed."""
    source += "\ndef invoke_tool(request, tools, **options):\n    return {}\n"
    session = session_for(server, source, serial)
    try:
        session.start()
    finally:
        session.stop()
    return session.take_output()
