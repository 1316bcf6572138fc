"""pytest's collection of the hidden tests: the authority on what the suite holds.

A job reads the suite itself when pytest's last catalogue, on record, agrees (grader/suite.py);
otherwise it collects here, once, and the catalogue is put on record for the jobs that follow.
`python -m grader.job --list` (run by `python -m grader.bytecode` when the grader is installed)
collects here too.
"""

from collections.abc import Callable

import pytest

from grader.jobfiles import write_json
from grader.paths import HIDDEN_CONFIG, HIDDEN_TESTS
from grader.plugin import CollectingPlugin
from grader.runner import HiddenCall
from grader.suite import put_on_record

# pytest's own plugins that collecting has no use for, not even imported: the job calls each
# hidden test itself (grader/runner.py), so nothing of pytest's per-test protocol (warnings,
# fixtures of its own, skipping, debugging, unittest classes, outputs such as junit or a cache)
# ever takes part. The two exception plugins would also collect garbage when the session ends (a
# whole heap, tens of milliseconds the parent waits for) to report what no test here can leave.
UNUSED_PLUGINS = (
    "cacheprovider",
    "logging",
    "unraisableexception",
    "threadexception",
    "debugging",
    "doctest",
    "faulthandler",
    "junitxml",
    "legacypath",
    "monkeypatch",
    "pastebin",
    "recwarn",
    "setuponly",
    "setupplan",
    "skipping",
    "stepwise",
    "subtests",
    "tmpdir",
    "unittest",
    "warnings",
)


def pytest_arguments() -> list[str]:
    """Return the arguments of a session that collects the hidden tests with their own config."""
    return [
        str(HIDDEN_TESTS),
        "--collect-only",
        "-qq",
        *(word for plugin in UNUSED_PLUGINS for word in ("-p", f"no:{plugin}")),
        "-c",
        str(HIDDEN_CONFIG),
        "--rootdir",
        str(HIDDEN_TESTS),
        "--strict-markers",
    ]


def collect(on_collecting: Callable[[], None] | None = None) -> list[HiddenCall]:
    """Collect the hidden tests and put their catalogue on record; RuntimeError if pytest fails.

    `on_collecting` is called between two collected files.
    """
    plugin = CollectingPlugin(on_collecting)
    code = pytest.main(pytest_arguments(), plugins=[plugin])
    if code != pytest.ExitCode.OK:
        raise RuntimeError(f"pytest could not collect the hidden tests (exit code {int(code)})")
    put_on_record([test.entry for test in plugin.calls])
    return plugin.calls


def list_tests(output_path: str) -> int:
    """Write the catalogue of hidden tests to `output_path`, and on record; run none."""
    try:
        tests = collect()
    except RuntimeError as error:
        print(f"grader: {error}")
        return 1
    write_json(output_path, [test.entry for test in tests])
    return 0
