"""A hidden test's tools are recipes the worker can follow; a mistake is named at once."""

import pytest

from grader.hidden.probes import raises, returns_made, scenario
from grader.sandbox.handlers import RecipeError, Toolbox, check_spec
from grader.sandbox.inside.kinds import MAKERS, build
from grader.sandbox.inside.raising import EXCEPTION_KINDS, make_exception

pytestmark = []


@pytest.mark.parametrize(
    ("build_it", "words"),
    [
        (
            lambda: raises("keyerror"),
            "an exception of kind 'keyerror', which raising.py cannot make",
        ),
        (lambda: returns_made("int_enum_member"), "a value made by 'int_enum_member'"),
        (lambda: Toolbox({"probe": {"does": "retrun"}}), "a tool that does 'retrun'"),
        (lambda: check_spec({"does": "flaky", "value": {}}), "an exception of kind None"),
    ],
)
def test_a_misspelt_recipe_stops_the_test_that_builds_it_with_the_mistake_named(build_it, words):
    with pytest.raises(RecipeError, match=words.replace("(", r"\(").replace(")", r"\)")):
        build_it()


def test_every_exception_kind_the_trusted_side_accepts_is_one_the_worker_makes():
    for kind in sorted(EXCEPTION_KINDS):
        assert isinstance(make_exception(kind, "a message"), BaseException), kind


def test_every_maker_the_trusted_side_accepts_is_one_the_worker_builds():
    options = {"depth": 3, "text": "a", "count": 3, "value": [[]], "at": [0, 0], "item": "bytes"}
    options |= {"repeat": 2, "keys": 3}  # large_arguments
    for maker in sorted(MAKERS):
        made = build({"make": maker, **options})  # raises for a maker it does not know
        if maker == "coroutine":
            made["data"][0].close()  # built, never awaited: closed as the guard closes it
    with pytest.raises(KeyError):
        build({"make": "no_such_maker"})


def test_a_well_made_scenario_passes_untouched():
    handler = raises("not_found")
    assert scenario(handler)["tools"]["probe"] is handler
    assert Toolbox(scenario(handler)["tools"]).records["probe"].spec == handler
