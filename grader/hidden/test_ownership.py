"""Ownership: arguments copied in (rule 5), and a fresh, faithful value out (rule 6)."""

import pytest

from grader.hidden.probes import (
    describe_raise,
    mutates,
    returns,
    returns_arguments,
    returns_fixture,
    scenario,
)
from grader.sandbox.inside.picture import untag
from grader.sandbox.values import same_json

pytestmark = pytest.mark.category("ownership")

ARGUMENTS = {
    "flat": {"user": "u-1", "limit": 3},
    "nested": {"filter": {"tags": ["a", "b"], "range": {"low": 1, "high": 2.5}}},
    "lists_of_dicts": {"rows": [{"id": 1, "cells": [1, 2]}, {"id": 2, "cells": []}]},
    "deep": {"a": {"b": {"c": {"d": {"e": [[["leaf"]]]}}}}},
}
VALUES = {
    "types": {"int": 1, "float": 1.0, "bool": True, "none": None, "text": "1"},
    "nested": {"rows": [{"id": 1, "tags": ["x"]}, {"id": 2, "tags": []}], "total": 2.0},
    "list": [0, 0.0, False, "", [], {}],
    "text": "é € 😀",
    "falsy_none": None,
    "falsy_false": False,
    "falsy_zero": 0,
    "deep_50": None,  # built below
}


def deep(levels):
    value = {"leaf": True}
    for _ in range(levels - 1):
        value = [value]
    return value


def value_of(observation):
    if observation.envelope is None:
        return describe_raise(observation)
    return observation.field("value")


@pytest.mark.parametrize("arguments", ARGUMENTS.values(), ids=ARGUMENTS.keys())
def test_handler_mutation_leaves_request_unchanged(submission, arguments):
    """A handler that changes its arguments at any depth changes nothing the caller holds."""
    observation = submission.call(scenario(mutates({"done": True}), arguments=arguments))
    assert observation["calls"]["probe"] >= 1, "the handler was never called"
    assert same_json(untag(observation["request_after"])["arguments"], arguments)
    # Putting the request back afterwards does not make up for handing the handler its objects.
    assert not observation["arguments_shared"], "the handler was given the request's own objects"


def test_handler_mutation_before_raising_leaves_request_unchanged(submission):
    """A handler that changes its arguments and then fails changes nothing the caller holds."""
    handler = dict(mutates(), does="mutate_then_raise", exception="not_found")
    arguments = ARGUMENTS["nested"]
    observation = submission.call(scenario(handler, arguments=arguments))
    assert observation["calls"]["probe"] >= 1, "the handler was never called"
    assert same_json(untag(observation["request_after"])["arguments"], arguments)
    # Putting the request back afterwards does not make up for handing the handler its objects.
    assert not observation["arguments_shared"], "the handler was given the request's own objects"


@pytest.mark.parametrize("arguments", ARGUMENTS.values(), ids=ARGUMENTS.keys())
def test_handler_receives_a_faithful_copy(submission, arguments):
    """The handler receives a dict equal to the request's arguments, with the same types."""
    arguments = dict(arguments, kinds=[1, 1.0, True, None, "1"])
    observation = submission.call(scenario(returns(None), arguments=arguments))
    received = observation["received"]["probe"]
    assert received and all(same_json(untag(copy), arguments) for copy in received)


@pytest.mark.parametrize("name", VALUES)
def test_value_is_faithful(submission, name):
    """A successful value equals the handler's result with the same types at every depth."""
    value = deep(50) if name == "deep_50" else VALUES[name]
    probe = scenario(returns(value), max_result_bytes=10**6)
    assert same_json(value_of(submission.call(probe)), value)


@pytest.mark.parametrize("shape", ["dict", "list"])
def test_value_shares_nothing_with_handler_result(submission, shape):
    """A successful value shares no list or dict with the object the handler returned."""
    held = {"dict": {"rows": [[1, 2], {"a": [3]}]}, "list": [[1], {"b": {"c": []}}]}[shape]
    observation = submission.call(scenario(returns_fixture(held), mutate_value=True))
    assert same_json(value_of(observation), held)
    assert not observation["value_shared"]
    assert same_json(untag(observation["fixtures_after"]["probe"]), held)


def test_value_shares_nothing_at_depth(submission):
    """A deeply nested value shares nothing with the handler's object, even at its deepest level."""
    held = deep(45)
    observation = submission.call(
        scenario(returns_fixture(held), mutate_value=True, max_result_bytes=10**6)
    )
    assert same_json(value_of(observation), held)
    assert not observation["value_shared"]
    assert same_json(untag(observation["fixtures_after"]["probe"]), held)


def test_changing_the_value_leaves_the_fixture_unchanged(submission):
    """Changing the returned value at any depth leaves the tool's own data unchanged."""
    roster = {"team": "blue", "members": [{"name": "Ada", "shifts": ["mon", "tue"]}]}
    observation = submission.call(scenario(returns_fixture(roster), mutate_value=True, repeat=2))
    assert same_json(value_of(observation), roster)
    assert same_json(untag(observation["fixtures_after"]["probe"]), roster)


def test_value_returned_from_arguments_is_fresh(submission):
    """A handler that returns its own arguments yields a value that shares nothing with them."""
    arguments = ARGUMENTS["nested"]
    observation = submission.call(
        scenario(returns_arguments(), arguments=arguments, mutate_value=True)
    )
    assert same_json(value_of(observation), arguments)
    assert same_json(untag(observation["request_after_mutation"])["arguments"], arguments)
