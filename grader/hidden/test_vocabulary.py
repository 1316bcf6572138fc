"""Vocabulary: a result outside the JSON value vocabulary, or not encodable as UTF-8 JSON text.

A value outside the vocabulary must get invalid_result: raising for it instead breaks that code
as well as rule 8, and fails here too. A value inside it that invoke_tool raised for is rule 8's
alone (error_codes), and an accepted value refused with another code than invalid_result (too
large, not_found...) is another category's wrong answer: only invalid_result is the
vocabulary's verdict.
"""

from course.contract import INVALID_RESULT, RESULT_TOO_LARGE
from grader.hidden.cases import cases, parametrize
from grader.hidden.judge.contract_rules import Rule, rules_of
from grader.hidden.judge.judging import judge
from grader.hidden.probes import (
    ROOMY,
    SUCCESS,
    outcome_of,
    outcome_or_raise,
    returns,
    returns_made,
    scenario,
    step_aside,
)
from grader.hidden.results import ACCEPTED, MADE, OUTSIDE, UNENCODABLE_AND_LONG
from grader.hidden.verdicts import EXCEPTION_CODES
from grader.sandbox.observation import Observation
from grader.sandbox.session import SubmissionSession

CATEGORY = "vocabulary"


# The category whose code each refusal of an accepted value is: that category judges it.
DECIDED_BY = {RESULT_TOO_LARGE: "unicode_boundary"} | dict.fromkeys(EXCEPTION_CODES, "error_codes")


def accepted(observation: Observation) -> bool:
    """Say whether the call succeeded; refused with another category's code, step aside.

    Any other answer (a misspelled code, an envelope nobody can read) is no success.
    """
    outcome = outcome_of(observation)
    if outcome in DECIDED_BY:
        category = DECIDED_BY[str(outcome)]
        reason = f"the result was refused with {outcome}, which {category} judges"
        raise step_aside(reason, category, observation)
    return outcome == SUCCESS


# Deeper than a picture may carry, so the worker builds them: the vocabulary has no depth limit
# of its own. 200 levels is past any round cap (100) yet leaves an honest recursive checker, a few
# frames per level, well inside Python's default recursion limit of 1000.
DEEP = {
    "deep_150": ("for a list nested 150 levels deep", 150),
    "deep_200": ("for a list nested 200 levels deep", 200),
}


@parametrize("value", cases(OUTSIDE))
def test_value_outside_vocabulary_is_invalid_result(
    submission: SubmissionSession, value: object
) -> None:
    """A result holding a value outside the JSON vocabulary, at any depth, gives invalid_result."""
    assert outcome_or_raise(submission.call(scenario(returns(value)))) == INVALID_RESULT


@parametrize("maker", cases({name: (words, name) for name, words in MADE.items()}))
def test_object_outside_vocabulary_is_invalid_result(
    submission: SubmissionSession, maker: str
) -> None:
    """A result holding a subclass, a foreign object or a cycle gives invalid_result."""
    assert outcome_or_raise(submission.call(scenario(returns_made(maker)))) == INVALID_RESULT


def test_nesting_too_deep_to_encode_is_invalid_result(submission: SubmissionSession) -> None:
    """A result nested too deeply for json.dumps gives invalid_result."""
    observation = submission.call(scenario(returns_made("deep_list", depth=5000)))
    assert outcome_or_raise(observation) == INVALID_RESULT


def test_unencodable_text_over_the_budget_is_invalid_result(submission: SubmissionSession) -> None:
    """Text holding a lone surrogate has no UTF-8 size: over a budget too, it is invalid_result."""
    observation = submission.call(scenario(returns(UNENCODABLE_AND_LONG), max_result_bytes=10))
    assert outcome_or_raise(observation) == INVALID_RESULT


def test_outside_and_too_large_gets_either_code(submission: SubmissionSession) -> None:
    """A result both outside the vocabulary and too large may get either code."""
    observation = submission.call(scenario(returns(("x" * 100,) * 20), max_result_bytes=50))
    assert outcome_or_raise(observation) in (INVALID_RESULT, RESULT_TOO_LARGE)


@parametrize("value", cases(ACCEPTED))
def test_value_inside_vocabulary_is_accepted(submission: SubmissionSession, value: object) -> None:
    """A result inside the vocabulary (big ints, odd floats, any text, deep nesting) succeeds."""
    probe = scenario(returns(value), max_result_bytes=ROOMY)
    assert accepted(submission.call(probe))


def test_one_list_twice_is_accepted(submission: SubmissionSession) -> None:
    """A result holding the same list twice, without a cycle, succeeds."""
    probe = scenario(returns_made("shared_list"), max_result_bytes=ROOMY)
    assert accepted(submission.call(probe))


@parametrize("depth", cases(DEEP))
def test_deep_nesting_within_json_limits_is_accepted(
    submission: SubmissionSession, depth: int
) -> None:
    """A result nested hundreds of levels deep, which json.dumps still encodes, succeeds."""
    probe = scenario(returns_made("deep_list", depth=depth), max_result_bytes=ROOMY)
    assert accepted(submission.call(probe))


@parametrize("rule", rules_of(CATEGORY))
def test_generated_scenarios_keep_the_rule(submission: SubmissionSession, rule: Rule) -> None:
    """Each generated scenario keeps the rule: ids, names, exceptions, values, budgets, programs."""
    judge(submission, rule)
