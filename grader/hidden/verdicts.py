"""When a hidden test steps aside: another category's rule has already decided its case.

Each helper asks the very scenario that the deciding category judges itself, and steps aside
(raises NotJudged) only when that scenario shows the same verdict. So stepping aside is never
free: a bug that makes a test step aside here costs that category's own case.
"""

from typing import Any

from course import contract
from course.contract import INVALID_RESULT, RESULT_TOO_LARGE, UNKNOWN_TOOL
from grader.hidden.probes import (
    ROOMY,
    SUCCESS,
    describe_raise,
    failed,
    field,
    outcome_of,
    returns,
    scenario,
    value_of,
)
from grader.hidden.results import ONE
from grader.model import NotJudged
from grader.sandbox.session import MISSING, Observation, SubmissionSession

# The codes of what a handler raised (and of a tool that is not there): a handler that returned
# must never get one (error_codes, test_a_returned_result_never_gets_an_exception_code).
EXCEPTION_CODES = (UNKNOWN_TOOL, *contract.EXCEPTION_CODES)
SCALAR = 3.25  # a result no object can be shared through: the control for raising at all


def plain_verdict(submission: SubmissionSession, value: object) -> None:
    """Step aside when `value`, returned plainly under a roomy budget, is refused or raised for.

    That plain call is a case of error_codes (invoke_tool must not raise for it, and a returned
    value never gets an exception's code) and of the vocabulary (a value inside it is accepted),
    so whatever refused it there is judged there. An unreadable envelope decides nothing here.
    """
    plain = submission.call(scenario(returns(value), max_result_bytes=ROOMY))
    if plain.envelope is None:
        raise NotJudged(f"{describe_raise(plain)} for this value, which error_codes judges")
    try:
        outcome = outcome_of(plain)
    except NotJudged:
        return
    if outcome == INVALID_RESULT:
        raise NotJudged("the value is refused at any size, which the vocabulary category judges")
    if outcome in EXCEPTION_CODES:
        raise NotJudged(f"the value gets {outcome} at any size, which error_codes judges")


def _returned_outcome(
    submission: SubmissionSession, observation: Observation, value: object
) -> object | None:
    """Return the outcome of a call whose handler returned `value`, or None to judge it here.

    A call that raised steps aside when the plain call of `value` raises or is refused too; an
    envelope that shows neither ok nor a code is the envelope's, so nothing is decided by it.
    """
    if observation.envelope is None:
        plain_verdict(submission, value)
        return None
    try:
        return outcome_of(observation)
    except NotJudged:
        return None


def settled_elsewhere(
    submission: SubmissionSession, observation: Observation, value: object
) -> None:
    """Step aside when a call returning `value` raised or was refused, and so is its plain call.

    A result_too_large is never settled elsewhere: under a budget it is the budget's verdict.
    """
    outcome = _returned_outcome(submission, observation, value)
    if outcome is not None and outcome not in (SUCCESS, RESULT_TOO_LARGE):
        plain_verdict(submission, value)


def falsy_settled_elsewhere(
    submission: SubmissionSession, observation: Observation, value: object, control: object
) -> None:
    """Step aside when a falsy result was refused or raised for by another category's rule.

    Rule 2 names falsy results as successes, so refusing one with an exception's code is the
    envelope's own case, unless a truthy `control` gets such a code too: then every returned
    value does, which error_codes judges. Raising, or invalid_result, for the very value at any
    size is rule 8's or the vocabulary's.
    """
    outcome = _returned_outcome(submission, observation, value)
    if outcome == INVALID_RESULT:
        plain_verdict(submission, value)
    elif outcome in EXCEPTION_CODES:
        plain_verdict(submission, control)


def success_value(submission: SubmissionSession, observation: Observation, value: object) -> object:
    """Return the value of a call whose handler returned `value`, judged as the value's own.

    A refusal steps aside only when the plain call of the same value is refused too (see
    plain_verdict), an envelope without a value field is the envelope's. Raising is judged
    here unless invoke_tool raises even for a bare number: a submission could raise for the
    very results that would show a shared object, and earn more in this category than its
    honest twin (fixtures/submissions/adversarial/ownership/raises-to-dodge-ownership.py).
    """
    if observation.envelope is None:
        plain_verdict(submission, SCALAR)
        return describe_raise(observation)
    if failed(observation):
        plain_verdict(submission, value)
    if observation["reused_object"]:  # the request itself then holds the value
        raise NotJudged("the envelope is an object the caller passed in, which the envelope judges")
    if field(observation, "value") is MISSING:
        raise NotJudged("the envelope has no value field, which the envelope category judges")
    return value_of(observation)


def changes_the_request(
    submission: SubmissionSession, arguments: dict[str, Any] | None = None
) -> bool:
    """Say whether invoke_tool itself changes the request, with a handler that changes nothing.

    The very scenario is a case of the envelope's rule 9 test, so a test that steps aside on
    it never makes a bug free.
    """
    return submission.call(scenario(returns(ONE), arguments=arguments))["request_changed"]


def request_kept(
    submission: SubmissionSession,
    observation: Observation,
    arguments: dict[str, Any] | None = None,
) -> None:
    """Step aside when invoke_tool changed the request or the tools by itself (rule 9).

    A later call then runs on other inputs than the test gave. Both controls are cases of the
    envelope's rule 9 tests, so stepping aside here is never free.
    """
    if observation["request_changed"] and changes_the_request(submission, arguments):
        raise NotJudged("invoke_tool itself changes the request, which the envelope judges")
    if observation["tools_changed"] and submission.call(scenario(returns(1)))["tools_changed"]:
        raise NotJudged("invoke_tool itself changes the tools, which the envelope judges")


def handler_called(
    submission: SubmissionSession,
    observation: Observation,
    arguments: dict[str, Any] | None = None,
) -> None:
    """Step aside when the handler was never called, and is not for these arguments at all.

    Calling the handler exactly once is rule 7's (no_retry asks these very arguments with a
    handler that changes nothing), so a test about what the handler received steps aside.
    """
    if observation["calls"]["probe"] == 0 and called_for(submission, arguments) == 0:
        raise NotJudged("the handler is never called for these arguments, which no_retry judges")


def called_for(submission: SubmissionSession, arguments: dict[str, Any] | None = None) -> int:
    """Return how often one call with `arguments` and a handler that changes nothing calls it."""
    return submission.call(scenario(returns(ONE), arguments=arguments))["calls"]["probe"]
