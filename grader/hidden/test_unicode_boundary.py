"""Unicode boundary: the byte budget of rule 4, measured exactly, and result_too_large.

Every value here is inside the vocabulary. When a submission refuses one with another code than
result_too_large, or raises for it, the case is asked again with a budget no value comes near:
refused there too, the vocabulary (or error_codes) decided it and the case steps aside;
accepted there, the refusal came from the budget, and the case is judged.
"""

from course.contract import INVALID_RESULT, RESULT_TOO_LARGE
from grader.hidden.cases import cases, judges, parametrize
from grader.hidden.judge.contract_rules import Rule, rules_of
from grader.hidden.judge.judging import judge
from grader.hidden.probes import (
    ROOMY,
    SUCCESS,
    describe_raise,
    encoded_size,
    outcome_of,
    returns,
    scenario,
    step_aside,
)
from grader.hidden.results import (
    ACCEPTED,
    DEFAULT_BUDGET,
    LARGE,
    MEASURED,
    ROWS,
    SMALLEST,
    UNITS,
    text_of_size,
)
from grader.hidden.verdicts import EXCEPTION_CODES, settled_elsewhere
from grader.sandbox.session import SubmissionSession

CATEGORY = "unicode_boundary"

VALUES = MEASURED
# Refusals of a value inside the vocabulary that no budget explains, and who judges them.
REFUSED_BY = {INVALID_RESULT: "vocabulary"} | dict.fromkeys(EXCEPTION_CODES, "error_codes")
# The megabyte's size, measured once per job rather than once per submission (milliseconds each).
LARGE_BYTES = encoded_size(LARGE)


def size_of(value: object) -> int:
    """Return the contract's size of a value, the megabyte's as measured once."""
    return LARGE_BYTES if value is LARGE else encoded_size(value)


def judged_outcome(
    submission: SubmissionSession, value: object, budget: int | None = None
) -> object:
    """Return the outcome for `value` under `budget`, or step aside if no budget would change it."""
    probe = (
        scenario(returns(value))
        if budget is None
        else scenario(returns(value), max_result_bytes=budget)
    )
    observation = submission.call(probe)
    settled_elsewhere(submission, observation, value)
    if observation.envelope is None:
        return "raised only when the budget was tight"
    return outcome_of(observation)


def plain_outcome(submission: SubmissionSession, value: object, budget: int) -> object:
    """Return the outcome, judged unless even plain rows are refused or raised for at any size.

    Asking the megabyte again at a roomy budget would cost another megabyte round trip, so the
    3 kB rows stand for it: a submission that refuses those whatever the budget has its refusal
    judged by their own categories, and one that refuses only big values is judged here.
    """
    observation = submission.call(scenario(returns(value), max_result_bytes=budget))
    settled_elsewhere(submission, observation, ROWS)
    if observation.envelope is None:
        return describe_raise(observation)
    return outcome_of(observation)


@judges("rule 4")
@parametrize("value", cases(VALUES))
def test_size_equal_to_budget_passes(submission: SubmissionSession, value: object) -> None:
    """A result whose encoded size equals max_result_bytes succeeds."""
    assert judged_outcome(submission, value, encoded_size(value)) == SUCCESS


@judges(RESULT_TOO_LARGE)
@parametrize("value", cases(VALUES))
def test_one_byte_over_budget_is_too_large(submission: SubmissionSession, value: object) -> None:
    """A result one byte larger than max_result_bytes gives result_too_large."""
    assert judged_outcome(submission, value, encoded_size(value) - 1) == RESULT_TOO_LARGE


@judges("rule 4")
@parametrize("value", cases(ACCEPTED))
def test_a_roomy_budget_refuses_no_value(submission: SubmissionSession, value: object) -> None:
    """A result far under its budget is never too large, whatever budget an earlier call had.

    The vocabulary asks these very calls, and steps aside for a refusal as too large: a budget
    kept from another call is this rule's fault, not the vocabulary's. The other way round, a
    value refused as outside the vocabulary, or with an exception's code, is theirs.
    """
    observation = submission.call(scenario(returns(value), max_result_bytes=ROOMY))
    outcome = outcome_of(observation)
    if outcome in REFUSED_BY:  # refused at any budget: not this rule's verdict
        category = REFUSED_BY[str(outcome)]
        reason = f"the result was refused with {outcome}, which {category} judges"
        raise step_aside(reason, category, observation)
    assert outcome == SUCCESS


UNIT_WORDS = {
    "ascii": "in ASCII",
    "two_byte": "in 2-byte characters",
    "three_byte": "in 3-byte characters",
    "four_byte": "in 4-byte characters",
}
EXACT = {n: (f"for a result of exactly the budget {w}", UNITS[n]) for n, w in UNIT_WORDS.items()}
OVER = {n: (f"for a result one byte over the budget {w}", UNITS[n]) for n, w in UNIT_WORDS.items()}


@judges("rule 4")
@parametrize("unit", cases(EXACT))
def test_default_budget_is_4096_bytes(submission: SubmissionSession, unit: str) -> None:
    """Without max_result_bytes, a result of exactly 4096 bytes succeeds."""
    assert judged_outcome(submission, text_of_size(DEFAULT_BUDGET, unit)) == SUCCESS


@judges(RESULT_TOO_LARGE)
@parametrize("unit", cases(OVER))
def test_default_budget_rejects_4097_bytes(submission: SubmissionSession, unit: str) -> None:
    """Without max_result_bytes, a result of 4097 bytes gives result_too_large."""
    value = text_of_size(DEFAULT_BUDGET + 1, unit)
    assert judged_outcome(submission, value) == RESULT_TOO_LARGE


@judges(RESULT_TOO_LARGE)
@parametrize("value", cases(SMALLEST))
def test_zero_budget_rejects_every_value(submission: SubmissionSession, value: object) -> None:
    """With max_result_bytes 0, even the smallest result gives result_too_large."""
    assert judged_outcome(submission, value, 0) == RESULT_TOO_LARGE


@judges("rule 4")
@parametrize(
    "value", cases({"text": ("for a 1-byte result", 7), "pair": ("for a 2-byte result", "")})
)
def test_a_tiny_budget_is_measured_exactly(submission: SubmissionSession, value: object) -> None:
    """A budget of a byte or two is measured like any other: the result fits exactly."""
    assert judged_outcome(submission, value, encoded_size(value)) == SUCCESS


SIZES = {
    "rows": ("for a 3 kB result under a budget of exactly its size", ROWS),
    "megabyte": ("for a 1.1 MB result under a budget of exactly its size", LARGE),
}


@judges("rule 4")
@parametrize("value", cases(SIZES))
def test_large_budget_accepts_large_value(submission: SubmissionSession, value: object) -> None:
    """A large budget is honoured as given: a large result of exactly that size succeeds."""
    assert plain_outcome(submission, value, size_of(value)) == SUCCESS


@judges(RESULT_TOO_LARGE)
def test_large_budget_is_measured_exactly(submission: SubmissionSession) -> None:
    """A large result one byte over a large budget gives result_too_large."""
    assert plain_outcome(submission, LARGE, LARGE_BYTES - 1) == RESULT_TOO_LARGE


@parametrize("rule", rules_of(CATEGORY))
def test_generated_scenarios_keep_the_rule(submission: SubmissionSession, rule: Rule) -> None:
    """Each generated scenario keeps the rule: ids, names, exceptions, values, budgets, programs."""
    judge(submission, rule)
