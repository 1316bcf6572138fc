"""The job's run loop: every hidden test, called directly, once per submission, as plain data.

The hidden tests come as HiddenCalls, read from their declarations (grader/job/suite.py). Each
submission gets one sandbox session; its tests run one
after another against it, and its result goes to `on_finished` as soon as it is done. Nothing
here imports pytest: a hidden test is a function that takes the session and its parameters.
"""

import sys
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from grader.hidden.verdicts import skipped_handler
from grader.jobfiles import CatalogueEntry, DetailedOutcome, GradingEntry, OutcomeData, ResultFile
from grader.model import (
    NOT_JUDGED,
    RUN_STATUSES,
    FailedExample,
    Limits,
    NotJudged,
    failure_reason,
)
from grader.sandbox.observation import ScenarioKey
from grader.sandbox.problems import LoadFailure, SandboxProblem
from grader.sandbox.server import ForkServer
from grader.sandbox.session import SubmissionSession
from grader.sandbox.values import shown

# The category whose rule 7 judges a call that skipped its handler: others step aside for it.
SKIPPED_BY = "no_retry"
# A submission the grader itself failed on is tried this many times in all.
GRADER_ATTEMPTS = 2


@dataclass(frozen=True)
class HiddenCall:
    """One hidden test, ready to call: its catalogue entry, its function and its parameters.

    The function is called with `submission` (the submission's sandbox session) when it takes
    it, and with `parameters`; a hidden test takes nothing else.
    """

    entry: CatalogueEntry
    function: Callable[..., object]
    parameters: dict[str, object] = field(default_factory=dict)
    takes_submission: bool = True


def status_of_error(error: Exception) -> str:
    """Return the test status an exception raised by a hidden test stands for."""
    if isinstance(error, SandboxProblem):
        return error.status
    if isinstance(error, AssertionError):
        return "failed"
    return "error"


@dataclass(frozen=True)
class Verdict:
    """How one hidden test ended for one submission, and which scenarios it asked.

    `claim` is, for a test that stepped aside, the category and scenario it stepped aside for.
    """

    status: str
    detail: str
    asked: set[ScenarioKey]
    claim: tuple[str, object] | None = None
    example: str = ""  # a failed generated scenario, for the student (FailedExample)
    taught: str = ""  # where the lessons teach that example (FailedExample)


def call_directly(test: HiddenCall, session: SubmissionSession) -> Verdict:
    """Call one hidden test for the submission in `session`; return how it ended."""
    arguments = dict(test.parameters)
    if test.takes_submission:
        arguments["submission"] = session
    try:
        test.function(**arguments)
    except NotJudged as error:
        claim = (error.category, error.scenario)
        return Verdict(NOT_JUDGED, failure_detail(error), session.take_asked(), claim)
    except Exception as error:
        example, taught = "", ""
        if isinstance(error, FailedExample):  # a generated scenario the student may see
            example, taught = error.example, error.taught
        status, detail = status_of_error(error), failure_detail(error)
        asked = session.take_asked()
        skipped = skipped_handler(session, asked) if status == "failed" else None
        if skipped is not None and test.entry["category"] != SKIPPED_BY:
            # A case whose handler did not run is rule 7's (CONTRACT.md's attribution rule).
            claim = (SKIPPED_BY, skipped)
            reason = f"a handler in the table was not called, which {SKIPPED_BY} judges: {detail}"
            return Verdict(NOT_JUDGED, reason[:DETAIL_WIDTH], asked, claim)
        return Verdict(status, detail, asked, None, example, taught)
    return Verdict("passed", "", session.take_asked())


def honour_step_asides(categories: Sequence[str], verdicts: list[Verdict]) -> list[Verdict]:
    """Return the verdicts with every unfounded step aside turned into a failure.

    A test may step aside only for a category whose own tests asked that very scenario and
    judged it (ended otherwise than stepping aside): stepping aside is then never free, and
    an answer that no test can read (an envelope with neither ok nor a code) is never a way
    out of the test that asked.
    """
    judged: dict[str, set[ScenarioKey]] = {}
    for category, verdict in zip(categories, verdicts, strict=True):
        if verdict.status != NOT_JUDGED:
            judged.setdefault(category, set()).update(verdict.asked)
    return [_honoured(verdict, judged) for verdict in verdicts]


def _honoured(verdict: Verdict, judged: dict[str, set[ScenarioKey]]) -> Verdict:
    if verdict.claim is None:
        return verdict
    category, scenario = verdict.claim
    if scenario in judged.get(category, ()):
        return verdict
    detail = f"stepped aside for {category}, which did not judge that scenario: {verdict.detail}"
    return Verdict("failed", detail[:DETAIL_WIDTH], verdict.asked)


def failure_detail(error: Exception) -> str:
    """Return what a hidden test's exception says, in bounded text, for the instructor's log.

    It may hold hidden inputs, and the student's values it carries (an assertion's envelope)
    are shown through `shown`: their own repr could be gigabytes, or raise.
    """
    parts = [arg if type(arg) is str else shown(arg) for arg in error.args]
    return "; ".join(part[:DETAIL_WIDTH] for part in parts)[:DETAIL_WIDTH]


DETAIL_WIDTH = 2000


class Runner:
    """Runs the hidden tests for each submission in turn."""

    def __init__(
        self,
        tests: Sequence[HiddenCall],
        limits: Limits,
        server: ForkServer,
        on_finished: Callable[[str, ResultFile], None],
    ) -> None:
        """`server` is the job's ForkServer; `on_finished(key, result)` gets each result."""
        self.tests = tests
        self.catalogue = [test.entry for test in tests]
        self.limits = limits
        self.server = server
        self.on_finished = on_finished
        # What the tests work out once for every submission of the job (SubmissionSession.shared).
        self.shared: dict[str, object] = {}

    def run_all(self, entries: Iterable[GradingEntry]) -> None:
        """Grade every entry, read one at a time (a class's code is never held at once)."""
        for serial, entry in enumerate(entries):
            self.on_finished(entry["key"], self.graded(entry, serial))

    def graded(self, entry: GradingEntry, serial: int) -> ResultFile:
        """Run one submission; a failure of the grader's own costs that student alone.

        What the student's code does ends as a test or load status; anything raised here is the
        grader's (a fork server that died starting, a cgroup the kernel refused). It is tried
        once more, then becomes this student's "error", and the job goes on with the next.
        The traceback goes to the job's log for the instructor.
        """
        for _attempt in range(GRADER_ATTEMPTS):
            try:
                return self.run_submission(entry, serial)
            except Exception as error:
                print(f"grader: the grader failed on submission {entry['key']}:", file=sys.stderr)
                traceback.print_exc()
                failure = error
        return self.result_for_all("error", "error", failure_reason("running", failure))

    def run_submission(self, entry: GradingEntry, serial: int = 0) -> ResultFile:
        """Run every hidden test for one submission and return its result as plain data.

        `serial` numbers the submission in this job, so its workers get a user id of their own.
        """
        if entry["error"] is not None:
            return self.result_for_all("error", "unreadable", entry["error"])
        session = SubmissionSession(entry["units"], self.limits, self.server, serial, self.shared)
        try:
            session.start()
        except LoadFailure as failure:
            session.stop()
            status = failure.status if failure.status in RUN_STATUSES else "error"
            return self.result_for_all(failure.status, status, failure.reason, session.spent)
        verdicts: list[Verdict] = []
        outputs: list[str] = []
        try:
            for test in self.tests:
                verdicts.append(call_directly(test, session))
                outputs.append(session.take_output())
        finally:
            session.stop()
        categories = [entry["category"] for entry in self.catalogue]
        outcomes: list[OutcomeData] = [
            _outcome(entry, verdict, output)
            for entry, verdict, output in zip(
                self.catalogue, honour_step_asides(categories, verdicts), outputs, strict=True
            )
        ]
        return self.finish(session, outcomes)

    def finish(self, session: SubmissionSession, outcomes: list[OutcomeData]) -> ResultFile:
        """Return the result of a submission whose tests all ran."""
        notes = " ".join(filter(None, [session.overrun(), *session.problems]))
        if session.out_of_time():
            used = session.time_words()
            later = " So the tests that had not finished by then are marked timeout."
            reason = used + later if used else ""
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
            {
                **entry,
                "status": test_status,
                "output": "",
                "example": "",
                "taught": "",
                "decided_by": "",
            }
            for entry in self.catalogue
        ]
        return {"status": status, "reason": reason, "outcomes": outcomes, "seconds": seconds}


def _outcome(entry: CatalogueEntry, verdict: Verdict, output: str) -> DetailedOutcome:
    return {
        **entry,
        "status": verdict.status,
        "detail": verdict.detail,
        "output": output,
        "example": verdict.example,
        "taught": verdict.taught,
        "decided_by": verdict.claim[0] if verdict.claim else "",
    }
