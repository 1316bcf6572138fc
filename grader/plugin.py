"""The pytest plugin that runs the hidden tests once per submission and records each outcome.

A job runs ONE pytest session. Its items are the hidden tests, collected once; the plugin's run
loop runs every item once per submission, with that submission's sandbox session as the
`submission` fixture, so each submission's tests run consecutively with one worker alive at a
time. Outcomes are plain data, handed to `on_finished` as soon as a submission is done.
"""

import inspect
import sys
import traceback
from collections.abc import Callable, Iterable, Sequence

import pytest

from grader.jobfiles import (
    CatalogueEntry,
    DetailedOutcome,
    GradingEntry,
    OutcomeData,
    ResultFile,
)
from grader.model import NOT_JUDGED, RUN_STATUSES, Limits, NotJudged, failure_reason
from grader.sandbox.client import SandboxProblem
from grader.sandbox.forkserver import ForkServer
from grader.sandbox.session import LoadFailure, SubmissionSession

PLUGIN_KEY: "pytest.StashKey[GradingPlugin]" = pytest.StashKey()


def describe(item: pytest.Function) -> CatalogueEntry:
    """Return the catalogue entry of a hidden test: its id, category and student-facing sentence."""
    categories = [marker.args[0] for marker in item.iter_markers("category")]
    category = categories[0] if len(categories) == 1 else "uncategorised"
    doc = (item.function.__doc__ or "").strip().splitlines()
    # Closest first: a case's own words, then those of any parametrization around it.
    words = [marker.args[0] for marker in item.iter_markers("case")]
    return {
        "test_id": f"{category}/{item.name}",
        "category": category,
        "categories": categories,
        "description": doc[0] if doc else item.name,
        "case": ", ".join(reversed(words)),
    }


def hidden_test_functions(items: Sequence[pytest.Item]) -> list[pytest.Function]:
    """Return the collected hidden tests, each a test function: any other item is a mistake."""
    others = [item.nodeid for item in items if not isinstance(item, pytest.Function)]
    if others:
        raise pytest.UsageError(f"hidden tests {', '.join(others)} are not test functions")
    return [item for item in items if isinstance(item, pytest.Function)]


def status_of_error(error: BaseException) -> str:
    """Return the test status an exception raised by a hidden test stands for."""
    if isinstance(error, SandboxProblem):
        return error.status
    if isinstance(error, NotJudged):
        return NOT_JUDGED
    if isinstance(error, AssertionError | pytest.fail.Exception):
        return "failed"
    return "error"


def direct_arguments(item: pytest.Function) -> tuple[str, ...]:
    """Return the arguments a hidden test takes: `submission` and its parameters, nothing else.

    Each test is then called directly, which is much cheaper than pytest's full run protocol
    (set-up, call and tear-down phases, each with hooks and a report that pytest keeps until
    the session ends). A test that asks for any other fixture is a mistake in the suite.
    """
    params = set(item.callspec.params) if hasattr(item, "callspec") else set()
    # `request` appears only because the `submission` fixture itself asks for it.
    extra = set(item.fixturenames) - params - {"submission", "request"}
    if extra:
        raise pytest.UsageError(
            f"hidden test {item.nodeid} asks for {', '.join(sorted(extra))}: a hidden test may "
            "take only `submission` and its own parameters"
        )
    return tuple(inspect.signature(item.obj).parameters)


# A submission the grader itself failed on is tried this many times in all.
GRADER_ATTEMPTS = 2


class GradingPlugin:
    """Runs the collected hidden tests for each submission in turn."""

    def __init__(
        self,
        entries: Iterable[GradingEntry],
        limits: Limits,
        on_finished: Callable[[str, ResultFile], None],
        server: Callable[[], ForkServer] | None = None,
        on_collected: Callable[[list[CatalogueEntry]], None] | None = None,
    ) -> None:
        """`entries` are dicts with key, units (CodeUnits) and error, read as they are graded
        (a class's code is never held at once); `on_finished(key, result)` gets each result.

        `server` returns the job's ForkServer once it is ready, and may be asked again: the job
        sets the server up while pytest collects (grader.sandbox.forkserver.Opening). None only
        when nothing is graded (listing the tests).
        `on_collected(catalogue)`, if given, is called once the hidden tests are collected.
        """
        self.entries = entries
        self.limits = limits
        self.server = server
        self.on_collected = on_collected
        self.on_collecting: Callable[[], None] | None = None
        self.on_finished = on_finished
        self.catalogue: list[CatalogueEntry] = []
        self.current: SubmissionSession | None = None

    def pytest_configure(self, config: pytest.Config) -> None:
        config.stash[PLUGIN_KEY] = self

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """Between two collected files: a moment for the job to start its fork server."""
        if self.on_collecting is not None:
            self.on_collecting()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.tests = hidden_test_functions(session.items)
        self.catalogue = [describe(item) for item in self.tests]
        self.direct = [direct_arguments(item) for item in self.tests]
        if self.on_collected is not None:
            self.on_collected(self.catalogue)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool | None:
        if session.config.option.collectonly:
            return None
        for serial, entry in enumerate(self.entries):
            self.on_finished(entry["key"], self.graded(entry, serial))
        return True

    def graded(self, entry: GradingEntry, serial: int) -> ResultFile:
        """Run one submission; a failure of the grader's own costs that student alone.

        What the student's code does ends as a test or load status; anything raised here is the
        grader's (a fork server that died starting, a cgroup the kernel refused). It is tried
        once more, then becomes this student's "error", and the job goes on with the next.
        The traceback goes to the job's log for the instructor.
        """
        for _attempt in range(GRADER_ATTEMPTS):
            try:
                return self.run_submission(self.tests, entry, serial)
            except Exception as error:
                print(f"grader: the grader failed on submission {entry['key']}:", file=sys.stderr)
                traceback.print_exc()
                failure = error
        return self.result_for_all("error", "error", failure_reason("running", failure))

    def run_submission(
        self, items: Sequence[pytest.Function], entry: GradingEntry, serial: int = 0
    ) -> ResultFile:
        """Run every item for one submission and return its result as plain data.

        `serial` numbers the submission in this job, so its workers get a user id of their own.
        """
        if entry["error"] is not None:
            return self.result_for_all("error", "unreadable", entry["error"])
        assert self.server is not None  # only a listing of the tests has none, and grades nobody
        session = SubmissionSession(entry["units"], self.limits, self.server(), serial)
        try:
            session.start()
        except LoadFailure as failure:
            session.stop()
            status = failure.status if failure.status in RUN_STATUSES else "error"
            return self.result_for_all(failure.status, status, failure.reason, session.spent)
        self.current = session
        outcomes: list[OutcomeData] = []
        try:
            for index, item in enumerate(items):
                status, detail = self.run_directly(item, self.direct[index], session)
                outcome: DetailedOutcome = {
                    **self.catalogue[index],
                    "status": status,
                    "detail": detail,
                    "output": session.take_output(),
                }
                outcomes.append(outcome)
        finally:
            session.stop()
            self.current = None
        return self.finish(session, outcomes)

    @staticmethod
    def run_directly(
        item: pytest.Function, names: tuple[str, ...], session: SubmissionSession
    ) -> tuple[str, str]:
        """Call a test needing only the submission and its parameters; return (status, detail)."""
        params = item.callspec.params if hasattr(item, "callspec") else {}
        arguments = {name: session if name == "submission" else params[name] for name in names}
        try:
            item.obj(**arguments)
        except Exception as error:
            # The detail is for the teacher's debugging log only: it may hold hidden inputs.
            return status_of_error(error), str(error)[:2000]
        return "passed", ""

    def finish(self, session: SubmissionSession, outcomes: list[OutcomeData]) -> ResultFile:
        """Return the result of a submission whose tests all ran."""
        notes = " ".join(session.problems)
        if session.out_of_time():
            reason = (
                f"Your code used up its time limit of {self.limits.timeout:g} seconds, so the "
                "tests that had not finished by then are marked timeout."
            )
            return {
                "status": "timeout",
                "reason": f"{reason} {notes}".strip(),
                "outcomes": outcomes,
                "seconds": session.spent,
            }
        return {
            "status": "completed",
            "reason": notes,
            "outcomes": outcomes,
            "seconds": session.spent,
        }

    def result_for_all(
        self, test_status: str, status: str, reason: str, seconds: float | None = None
    ) -> ResultFile:
        """Return a result in which every hidden test ended with the same status."""
        outcomes: list[OutcomeData] = [
            {**entry, "status": test_status, "output": ""} for entry in self.catalogue
        ]
        return {"status": status, "reason": reason, "outcomes": outcomes, "seconds": seconds}
