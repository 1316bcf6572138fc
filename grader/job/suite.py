"""The hidden suite as a job calls it: each declared test, and one test called for a submission.

The suite declares itself in plain Python (grader/hidden/cases.py), so a job reads it in a few
milliseconds and never imports pytest; pytest's own collection is checked against the same
declarations (grader/hidden/conftest.py). A hidden test is a function that takes the
submission's sandbox session and its parameters: `call_directly` calls it and says how it ended
(a Verdict), and `honour_step_asides` holds each test that stepped aside to the category it
stepped aside for.
"""

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from grader.hidden.cases import declared_suite
from grader.hidden.verdicts import skipped_handler
from grader.jobfiles import CatalogueEntry, catalogue_entry, write_json
from grader.model import NOT_JUDGED, FailedExample, NotJudged
from grader.sandbox.observation import ScenarioKey
from grader.sandbox.problems import SandboxProblem
from grader.sandbox.session import SubmissionSession
from grader.sandbox.values import shown

# The category whose rule 7 judges a call that skipped its handler: others step aside for it.
SKIPPED_BY = "no_retry"


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


def hidden_calls() -> list[HiddenCall]:
    """Return every hidden test, ready for the job to call, in the suite's order."""
    return [
        HiddenCall(
            catalogue_entry(
                test.name, test.function.__doc__, list(test.categories), test.words, test.part
            ),
            test.function,
            test.parameters,
            test.takes_submission,
        )
        for test in declared_suite()
    ]


def list_tests(output_path: str) -> int:
    """Write the catalogue of hidden tests to `output_path`; run none. Return the exit status."""
    try:
        tests = hidden_calls()
    except Exception as error:  # a suite that cannot be read: said in one line, graded by none
        print(f"grader: the hidden tests could not be read: {error}", file=sys.stderr)
        return 1
    write_json(output_path, [test.entry for test in tests])
    return 0
