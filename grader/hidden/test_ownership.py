"""Ownership: arguments copied in (rule 5), and a fresh, faithful value out (rule 6).

A case steps aside only where another category decided it on the very scenario it judges
itself (grader/hidden/verdicts.py): the plain call of the value refused as invalid_result or
with an exception's code, an envelope without a value field, invoke_tool changing the request
or the tools by itself, a handler never called for these arguments. A reused envelope sets
nothing aside: each value is judged as invoke_tool returned it. Raising for a value is
judged here unless invoke_tool raises even for a bare number: raising for the very results that
would show a shared object must not earn more here than honest sharing does. Falsy results are
the envelope's cases, so no top-level falsy value is used here. "Nested 50 levels deep
succeeds" is this category's own sentence, so only its bottom's own refusal sets it aside.
"""

from typing import Any, Literal

from grader.hidden.cases import cases, judges, parametrize
from grader.hidden.judge.contract_rules import Rule, rules_of
from grader.hidden.judge.judging import judge
from grader.hidden.probes import (
    ROOMY,
    describe_raise,
    field,
    mutates,
    returns,
    returns_arguments,
    returns_fixture,
    scenario,
    step_aside,
)
from grader.hidden.results import (
    ARGUMENT_SETS,
    COPIED,
    DEEP_50,
    LEAF,
    NESTED_ARGUMENTS,
    ONE,
    ROSTER,
    ROWS_AND_NEXT,
    SHAPES,
    nested,
)
from grader.hidden.verdicts import (
    TWO_MUTATING_CALLS,
    handler_called,
    plain_verdict,
    request_kept,
    settled_elsewhere,
    success_value,
    value_field_kept,
)
from grader.sandbox.crossing import ToolSpec, untag
from grader.sandbox.observation import Observation
from grader.sandbox.session import SubmissionSession
from grader.sandbox.values import same_json

CATEGORY = "ownership"

ARGUMENTS = ARGUMENT_SETS
NESTED = NESTED_ARGUMENTS  # returned as a value too, so it is one of the vocabulary's cases
VALUES = COPIED


def deep(levels: int) -> object:
    return nested(levels, LEAF)


def arguments_after(
    submission: SubmissionSession,
    observation: Observation,
    arguments: dict[str, Any] | None,
    key: Literal["request_after", "request_after_mutation"] = "request_after",
) -> object:
    """Return the request's arguments as the caller holds them after the call."""
    request_kept(submission, observation, arguments)
    request = untag(observation[key])
    return request.get("arguments") if isinstance(request, dict) else request


@judges("rule 5")
@parametrize("arguments", cases(ARGUMENTS))
def test_handler_mutation_leaves_request_unchanged(
    submission: SubmissionSession, arguments: dict[str, Any]
) -> None:
    """A handler that changes its arguments at any depth changes nothing the caller holds."""
    observation = submission.call(scenario(mutates({"done": True}), arguments=arguments))
    handler_called(submission, observation, arguments)
    assert observation["calls"]["probe"] >= 1, "the handler was never called"
    assert same_json(arguments_after(submission, observation, arguments), arguments)
    # Putting the request back afterwards does not make up for handing the handler its objects.
    assert not observation["arguments_shared"], "the handler was given the request's own objects"


@judges("rule 5")
def test_handler_mutation_before_raising_leaves_request_unchanged(
    submission: SubmissionSession,
) -> None:
    """A handler that changes its arguments and then fails changes nothing the caller holds."""
    handler: ToolSpec = {**mutates(), "does": "mutate_then_raise", "exception": "not_found"}
    observation = submission.call(scenario(handler, arguments=NESTED))
    handler_called(submission, observation, NESTED)
    assert observation["calls"]["probe"] >= 1, "the handler was never called"
    assert same_json(arguments_after(submission, observation, NESTED), NESTED)
    assert not observation["arguments_shared"], "the handler was given the request's own objects"


@judges("rule 5")
def test_every_call_copies_the_arguments_afresh(submission: SubmissionSession) -> None:
    """Each call gives its handler a fresh copy: what one handler changed never reaches the next."""
    observation = submission.call(TWO_MUTATING_CALLS)
    if observation.raised is not None:  # the second call never ran
        plain_verdict(submission, LEAF)  # raising for this value at all: rule 8's case
    request_kept(submission, observation, NESTED)  # changed by invoke_tool itself: rule 9's
    received = observation["received"]["probe"]
    if len(received) != 2:  # which copy belongs to which call is then unknown; no_retry asks it
        reason = "the handler was not called once per call, which no_retry judges"
        raise step_aside(reason, "no_retry", observation)
    after = arguments_after(submission, observation, NESTED)
    assert all(same_json(untag(copy), NESTED) for copy in received), "a later call saw changes"
    assert same_json(after, NESTED)
    assert not observation["arguments_shared"], "the handler was given the request's own objects"


@judges("rule 5")
@parametrize("arguments", cases(ARGUMENTS))
def test_handler_is_given_arguments_of_its_own(
    submission: SubmissionSession, arguments: dict[str, Any]
) -> None:
    """The handler gets its own copy of the arguments, never a list or dict the caller holds.

    Rule 5 says the arguments are deep-copied before the handler is called, and that nothing
    the handler does "at any time" reaches the caller: a handler that changes nothing now may
    keep its argument and change it later. The caller holds every object the request held when
    the call began, so arguments taken out of the request (`request.pop("arguments")`), handed
    on uncopied and put back, or replaced in the request by a copy, are still the caller's.
    The handler here changes nothing, so this is the very scenario no_retry and the envelope
    ask with these arguments.
    """
    observation = submission.call(scenario(returns(ONE), arguments=arguments))
    handler_called(submission, observation, arguments)
    assert not observation["arguments_shared"], "the handler was given the caller's own objects"


@judges("rule 5")
@parametrize("arguments", cases(ARGUMENTS))
def test_handler_receives_a_faithful_copy(
    submission: SubmissionSession, arguments: dict[str, Any]
) -> None:
    """The handler receives a dict equal to the request's arguments, with the same types."""
    given = dict(arguments, kinds=[1, 1.0, True, None, "1"])
    observation = submission.call(scenario(returns(None), arguments=given))
    request_kept(submission, observation, arguments)  # a copy of a request it changed itself
    handler_called(submission, observation, arguments)
    received = observation["received"]["probe"]
    assert received and all(same_json(untag(copy), given) for copy in received)


@judges("rule 6")
@parametrize("value", cases(VALUES))
def test_value_is_faithful(submission: SubmissionSession, value: object) -> None:
    """A successful value equals the handler's result with the same types, and is a new object."""
    observation = submission.call(scenario(returns(value), max_result_bytes=ROOMY))
    assert same_json(success_value(submission, observation, value), value)
    assert not observation["value_shared"], "the value is the very object the handler returned"


@judges("rule 6")
def test_a_value_nested_50_levels_deep_succeeds(submission: SubmissionSession) -> None:
    """A value nested 50 levels deep is an ordinary value: it succeeds, faithfully copied."""
    value = DEEP_50
    observation = submission.call(scenario(returns(value), max_result_bytes=ROOMY))
    settled_elsewhere(submission, observation, LEAF)  # its bottom alone refused: not depth's
    assert observation.envelope is not None, describe_raise(observation)
    value_field_kept(submission, observation)
    assert same_json(field(observation, "value"), value), "the deep value did not come back"


@judges("rule 6")
@parametrize("held", cases(SHAPES))
def test_value_shares_nothing_with_handler_result(
    submission: SubmissionSession, held: object
) -> None:
    """A successful value shares no list or dict with the object the handler returned."""
    observation = submission.call(scenario(returns_fixture(held), mutate_value=True))
    assert same_json(success_value(submission, observation, held), held)
    assert not observation["value_shared"]
    assert same_json(untag(observation["fixtures_after"]["probe"]), held)


@judges("rule 6")
def test_value_shares_nothing_at_depth(submission: SubmissionSession) -> None:
    """A deeply nested value shares nothing with the handler's object, even at its deepest level."""
    held = deep(45)
    observation = submission.call(
        scenario(returns_fixture(held), mutate_value=True, max_result_bytes=ROOMY)
    )
    assert same_json(success_value(submission, observation, held), held)
    assert not observation["value_shared"]
    assert same_json(untag(observation["fixtures_after"]["probe"]), held)


@judges("rule 6")
def test_changing_the_value_leaves_the_fixture_unchanged(submission: SubmissionSession) -> None:
    """Changing the returned value at any depth leaves the tool's own data unchanged."""
    roster = ROSTER
    observation = submission.call(scenario(returns_fixture(roster), mutate_value=True, repeat=2))
    assert same_json(success_value(submission, observation, roster), roster)
    assert same_json(untag(observation["fixtures_after"]["probe"]), roster)


REPEATED = {
    "same_result": ("when a handler returns equal results twice", "return"),
    "same_object": ("when a handler returns the very same object twice", "return_fixture"),
}


@judges("rule 6")
@parametrize("does", cases(REPEATED))
def test_two_calls_share_no_value(submission: SubmissionSession, does: str) -> None:
    """Two calls never return values that share a list or dict: nothing is cached between calls."""
    held = ROWS_AND_NEXT
    handler = returns(held) if does == "return" else returns_fixture(held)
    observation = submission.call(scenario(handler, repeat=2))
    request_kept(submission, observation)
    assert same_json(success_value(submission, observation, held), held)
    assert len(observation.envelopes) == 2, "invoke_tool did not return twice"
    # Each value is judged as invoke_tool returned it, so an envelope the second call reused
    # (the envelope's own bug) hides no value the first call returned: no stepping aside.
    assert not observation["value_reused"], (
        "the second call's value shares objects with the first's"
    )


@judges("rule 6")
def test_value_returned_from_arguments_is_fresh(submission: SubmissionSession) -> None:
    """A handler that returns its own arguments yields a value that shares nothing with them."""
    observation = submission.call(
        scenario(returns_arguments(), arguments=NESTED, mutate_value=True)
    )
    after = arguments_after(submission, observation, NESTED, key="request_after_mutation")
    assert same_json(success_value(submission, observation, NESTED), NESTED)
    assert not observation["value_shared"], "the value is the very argument object the handler got"
    assert same_json(after, NESTED)


@parametrize("rule", rules_of(CATEGORY))
def test_generated_scenarios_keep_the_rule(submission: SubmissionSession, rule: Rule) -> None:
    """Each generated scenario keeps the rule: ids, names, exceptions, values, budgets, programs."""
    judge(submission, rule)
