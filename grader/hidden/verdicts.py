"""When a hidden test steps aside: another category's rule has already decided its case.

Each helper asks the very scenario that the deciding category judges itself, and steps aside
(raises NotJudged) only when that scenario shows the same verdict. So stepping aside is never
free: a bug that makes a test step aside here costs that category's own case.
"""

from typing import Any

from course import contract
from course.contract import INVALID_RESULT, RESULT_TOO_LARGE, UNKNOWN_TOOL
from grader.hidden.judge.reading import envelopes, outcome
from grader.hidden.probes import (
    ROOMY,
    SUCCESS,
    describe_raise,
    envelope_of,
    failed,
    field,
    mutates,
    outcome_of,
    returns,
    scenario,
    step_aside,
    value_of,
)
from grader.hidden.results import LEAF, NESTED_ARGUMENTS, ONE, PAIR
from grader.sandbox.handlers import Scenario
from grader.sandbox.observation import MISSING, Observation, ScenarioKey
from grader.sandbox.problems import SandboxProblem
from grader.sandbox.session import SubmissionSession

# The codes of what a handler raised (and of a tool that is not there): a handler that returned
# must never get one (error_codes, test_a_returned_result_never_gets_an_exception_code).
EXCEPTION_CODES = (UNKNOWN_TOOL, *contract.EXCEPTION_CODES)
SCALAR = 3.25  # a result no object can be shared through: the control for raising at all
# Two calls whose handler changes its arguments: ownership tells each call's copy apart on it,
# and steps aside for no_retry when the handler is not called once per call; no_retry asks it.
TWO_MUTATING_CALLS = scenario(mutates(LEAF), arguments=NESTED_ARGUMENTS, repeat=2)
# Two plain successes: the envelope's rule 9 asks whether the second envelope is a new one.
TWO_SUCCESSES = scenario(returns(ONE), repeat=2)


def plain_verdict(submission: SubmissionSession, value: object) -> None:
    """Step aside when `value`, returned plainly under a roomy budget, is refused or raised for.

    That plain call is a case of error_codes (invoke_tool must not raise for it, and a returned
    value never gets an exception's code) and of the vocabulary (a value inside it is accepted),
    so whatever refused it there is judged there. An unreadable envelope decides nothing here.
    """
    plain = submission.call(scenario(returns(value), max_result_bytes=ROOMY))
    if plain.envelope is None:
        reason = f"{describe_raise(plain)} for this value, which error_codes judges"
        raise step_aside(reason, "error_codes", plain)
    outcome = outcome_of(plain)
    if outcome == INVALID_RESULT:
        reason = "the value is refused at any size, which the vocabulary category judges"
        raise step_aside(reason, "vocabulary", plain)
    if outcome in EXCEPTION_CODES:
        reason = f"the value gets {outcome} at any size, which error_codes judges"
        raise step_aside(reason, "error_codes", plain)


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
    return outcome_of(observation)


def envelope_or_step_aside(
    submission: SubmissionSession, observation: Observation, control: Scenario
) -> object:
    """Return the envelope; if invoke_tool raised, step aside only if it raises for `control`.

    `control` is error_codes' own scenario of the same handler (rule 8's case, under the
    default request): raising there too is judged there. Raising only here (for this id, say)
    is this test's to judge, so it gets None, which no envelope test accepts.
    """
    if observation.envelope is not None:
        return envelope_of(observation)
    plain = submission.call(control)
    if plain.envelope is None:
        reason = f"{describe_raise(plain)}, which the error_codes category judges"
        raise step_aside(reason, "error_codes", plain)
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
        control = submission.call(TWO_SUCCESSES)
        if control["reused_object"]:
            reason = "the envelope is an object the caller passed in, which the envelope judges"
            raise step_aside(reason, "envelope", control)
    value_field_kept(submission, observation)
    return value_of(observation)


def value_field_kept(submission: SubmissionSession, observation: Observation) -> None:
    """Step aside when a success has no value field, and neither has a plain one.

    The plain success is the envelope's own case (test_success_envelope_has_exactly_four_keys
    asks it): an envelope that never holds a value is judged there; one that loses its value
    only here is this test's to judge.
    """
    if field(observation, "value") is not MISSING:
        return
    control = submission.call(scenario(returns(PAIR)))
    if control.envelope is not None and field(control, "value") is MISSING:
        reason = "the envelope has no value field, which the envelope category judges"
        raise step_aside(reason, "envelope", control)


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
    if observation["request_changed"]:
        control = submission.call(scenario(returns(ONE), arguments=arguments))
        if control["request_changed"]:
            reason = "invoke_tool itself changes the request, which the envelope judges"
            raise step_aside(reason, "envelope", control)
    if observation["tools_changed"]:
        control = submission.call(scenario(returns(1)))
        if control["tools_changed"]:
            reason = "invoke_tool itself changes the tools, which the envelope judges"
            raise step_aside(reason, "envelope", control)


def handler_called(
    submission: SubmissionSession,
    observation: Observation,
    arguments: dict[str, Any] | None = None,
) -> None:
    """Step aside when the handler was never called, and is not for these arguments at all.

    Calling the handler exactly once is rule 7's (no_retry asks these very arguments with a
    handler that changes nothing), so a test about what the handler received steps aside.
    """
    if observation["calls"]["probe"] == 0:
        control = submission.call(scenario(returns(ONE), arguments=arguments))
        if control["calls"]["probe"] == 0:
            reason = "the handler is never called for these arguments, which no_retry judges"
            raise step_aside(reason, "no_retry", control)


def called_for(submission: SubmissionSession, arguments: dict[str, Any] | None = None) -> int:
    """Return how often one call with `arguments` and a handler that changes nothing calls it."""
    return submission.call(scenario(returns(ONE), arguments=arguments))["calls"]["probe"]


def handler_skipped(scenario: Scenario, observation: Observation) -> bool:
    """Say whether a call returned without running a handler the contract says it runs.

    The tool is in the table and invoke_tool answered each call, none of them unknown_tool
    (which the code table judges), yet the handler ran fewer times than invoke_tool was
    called: rule 7's fault (a circuit breaker, a cache), so the outcome is not another rule's
    to judge (CONTRACT.md's attribution rule).
    """
    if not handler_judged(scenario, observation):
        return False
    name = scenario["request"]["tool"]
    return observation["calls"].get(name, 0) < len(observation.envelopes)


def handler_judged(scenario: Scenario, observation: Observation) -> bool:
    """Say whether a call says anything of whether its handler ran: it must, and was answered.

    The tool is in the table, invoke_tool returned for each call (what raised is rule 8's),
    and no answer is unknown_tool (the code table's).
    """
    name = scenario["request"]["tool"]
    if type(name) is not str or name not in scenario["tools"] or observation.raised is not None:
        return False
    answered = envelopes(observation)
    return bool(answered) and all(outcome(envelope) != UNKNOWN_TOOL for envelope in answered)


def skipped_handler(session: SubmissionSession, asked: set[ScenarioKey]) -> ScenarioKey | None:
    """Return the key of a scenario among `asked` whose handler was skipped for what came before.

    A test whose case that is steps aside for no_retry, whose last test judges every scenario
    any test asked (test_no_retry.test_every_asked_call_runs_its_handler). Only a handler the
    same call runs when made alone, in a worker loaded anew: one skipped there too is skipped for
    the call's own inputs (empty arguments refused, say), and the answer made up for it is the
    code table's to judge as well (fixtures/submissions/exceptions.toml says which).
    """
    for key in sorted(asked, key=repr):
        scenario, observation = session.scenarios.get(key), session.observed.get(key)
        if scenario is None or observation is None or not handler_skipped(scenario, observation):
            continue
        if runs_alone(session, key, scenario):
            return key
    return None


def runs_alone(session: SubmissionSession, key: ScenarioKey, scenario: Scenario) -> bool:
    """Say whether the scenario's handler runs when the call is made alone, in a fresh worker.

    Asked once per scenario, and only for a failing test whose handler was skipped: a correct
    submission never pays for it.
    """
    found = session.memo.setdefault(ALONE, {})
    assert isinstance(found, dict)  # only this function keeps anything under ALONE
    if key not in found:
        try:
            [observation] = session.run_fresh([scenario])
            found[key] = not handler_skipped(scenario, observation)
        except SandboxProblem:
            found[key] = False
    return bool(found[key])


ALONE = "verdicts/runs alone"  # where SubmissionSession.memo keeps what runs_alone found
