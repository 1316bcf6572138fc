"""The pytest plugin that collects the hidden tests into HiddenCalls, and runs none of them.

pytest is how the hidden suite is written and collected: its files, its test functions, its
cases (grader/hidden/conftest.py) and its markers. Once collected, each test becomes a
HiddenCall (grader/runner.py), which the job calls directly for each submission, after the
session has ended: nothing of pytest's per-test protocol (set-up, call and tear-down phases,
each with hooks and a report kept until the session ends) ever takes part.
"""

import inspect
from collections.abc import Callable, Sequence

import pytest

from grader.jobfiles import CatalogueEntry, catalogue_entry
from grader.runner import HiddenCall


def describe(item: pytest.Function) -> CatalogueEntry:
    """Return the catalogue entry of a hidden test: its id, category and student-facing sentence."""
    categories = [marker.args[0] for marker in item.iter_markers("category")]
    # Closest first: a case's own words, then those of any parametrization around it.
    words = [marker.args[0] for marker in item.iter_markers("case")]
    return catalogue_entry(item.name, item.function.__doc__, categories, ", ".join(reversed(words)))


def hidden_test_functions(items: Sequence[pytest.Item]) -> list[pytest.Function]:
    """Return the collected hidden tests, each a test function: any other item is a mistake."""
    others = [item.nodeid for item in items if not isinstance(item, pytest.Function)]
    if others:
        raise pytest.UsageError(f"hidden tests {', '.join(others)} are not test functions")
    return [item for item in items if isinstance(item, pytest.Function)]


def direct_arguments(item: pytest.Function) -> tuple[str, ...]:
    """Return the arguments a hidden test takes: `submission` and its parameters, nothing else.

    A test that asks for any other fixture is a mistake in the suite: the job calls each test
    itself, with nothing but the submission's session and the test's own parameters.
    """
    params = set(item.callspec.params) if hasattr(item, "callspec") else set()
    extra = set(item.fixturenames) - params - {"submission"}
    if extra:
        raise pytest.UsageError(
            f"hidden test {item.nodeid} asks for {', '.join(sorted(extra))}: a hidden test may "
            "take only `submission` and its own parameters"
        )
    return tuple(inspect.signature(item.obj).parameters)


def hidden_call(item: pytest.Function) -> HiddenCall:
    """Return the collected test `item` as the job calls it."""
    names = direct_arguments(item)
    params = item.callspec.params if hasattr(item, "callspec") else {}
    return HiddenCall(
        entry=describe(item),
        function=item.obj,
        parameters={name: params[name] for name in names if name != "submission"},
        takes_submission="submission" in names,
    )


class CollectingPlugin:
    """Collects the hidden tests into `calls`, in a session that only collects (--collect-only)."""

    def __init__(self, on_collecting: Callable[[], None] | None = None) -> None:
        """`on_collecting`, if given, is called between two collected files: a job starts its
        fork server there once its set-up is done."""
        self.on_collecting = on_collecting
        self.calls: list[HiddenCall] = []

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if self.on_collecting is not None:
            self.on_collecting()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.calls = [hidden_call(item) for item in hidden_test_functions(session.items)]
