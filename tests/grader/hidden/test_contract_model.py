"""The executable contract agrees with both references on every generated scenario."""

import warnings
from pathlib import Path

import pytest

from course.contract import (
    FAILURE_CODES,
    INVALID_RESULT,
    NOT_FOUND,
    RESULT_TOO_LARGE,
    TOOL_FAILED,
)
from grader.hidden.judge.contract_model import (
    PROPAGATES,
    SUCCESS,
    every_call,
    every_inner,
    expect,
)
from grader.hidden.judge.corpus import families
from grader.hidden.probes import (
    nests,
    raises,
    returns,
    returns_arguments,
    returns_made,
    scenario,
)
from grader.sandbox.inside.picture import untag
from grader.sandbox.values import same_json
from tooling.scenarios.inprocess import run

pytestmark = []

CORRECT = Path(__file__).resolve().parents[3] / "fixtures" / "submissions" / "correct"
REFERENCES = ("reference.py", "second-reference.py")


def invoke_tool_of(name):
    namespace = {}
    source = (CORRECT / name).read_text(encoding="utf-8")
    exec(compile(source, name, "exec"), namespace)  # our own reference, in this process
    return namespace["invoke_tool"]


@pytest.mark.parametrize("reference", REFERENCES)
def test_every_generated_scenario_is_what_the_reference_does(reference):
    invoke_tool = invoke_tool_of(reference)
    disagreements = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # coroutines a reference refused
        for family, entries in families().items():
            for entry in entries:
                inner: dict[str, list] = {}
                outcomes, calls = run(invoke_tool, entry.scenario, inner)
                fits = calls == every_call(entry.scenario, entry.expected)
                for (got, value), allowed in zip(outcomes, entry.expected.outcomes, strict=True):
                    fits = fits and got in allowed
                    fits = fits and (got != SUCCESS or same_json(value, entry.value))
                # Each call a handler made of invoke_tool, at every depth, once.
                expected_inner = every_inner(entry.expected)
                fits = fits and inner.keys() == expected_inner.keys()
                for key, expected in expected_inner.items():
                    [(got, value)] = inner[key]
                    fits = fits and got in expected.outcomes[0]
                    fits = fits and (got != SUCCESS or same_json(value, untag(expected.value)))
                if not fits:
                    disagreements.append((family, entry.scenario))
    assert disagreements == []


def test_an_exception_gets_every_code_its_class_has_and_only_those():
    assert expect(scenario(raises("not_found_mixin"))).outcomes == ((NOT_FOUND,),)
    assert set(expect(scenario(raises("ambiguous"))).outcomes[0]) == {"invalid_input", NOT_FOUND}
    assert expect(scenario(raises("lookalike"))).outcomes == ((TOOL_FAILED,),)
    assert expect(scenario(raises("keyboard_interrupt"))).outcomes == ((PROPAGATES,),)
    assert expect(scenario(raises("interrupted_invalid_input"))).outcomes == (("invalid_input",),)


def test_the_budget_is_exact_and_outside_values_may_get_either_code_only_when_too_large():
    text = "\u00e9\u00e9"  # 6 bytes as JSON: two quotes and two 2-byte characters
    assert expect(scenario(returns(text), max_result_bytes=6)).outcomes == ((SUCCESS,),)
    assert expect(scenario(returns(text), max_result_bytes=5)).outcomes == ((RESULT_TOO_LARGE,),)
    both = (INVALID_RESULT, RESULT_TOO_LARGE)
    assert expect(scenario(returns((1, 2)), max_result_bytes=4)).outcomes == (both,)
    assert expect(scenario(returns((1, 2)), max_result_bytes=6)).outcomes == ((INVALID_RESULT,),)
    lone = expect(scenario(returns("\ud800" * 9), max_result_bytes=1))
    assert lone.outcomes == ((INVALID_RESULT,),)  # no UTF-8 size at all


def test_a_success_expects_the_decoded_value_with_its_types():
    expected = expect(scenario(returns({"a": [1, 1.0, True, -0.0]})))
    assert expected.outcomes == ((SUCCESS,),)
    assert same_json(untag(expected.value), {"a": [1, 1.0, True, -0.0]})
    assert not same_json(untag(expected.value), {"a": [1, 1, True, 0.0]})


def test_an_unknown_tool_calls_nothing():
    unknown = scenario(returns(1))
    unknown["request"]["tool"] = "Probe"
    assert expect(unknown).calls == {"probe": 0}
    assert expect(unknown).outcomes == (("unknown_tool",),)


@pytest.mark.parametrize(
    ("kind", "code"),
    [
        ("falsy_invalid_input", "invalid_input"),  # bool() False: still raised, still its class
        ("falsy_fault", TOOL_FAILED),
        ("empty_not_found", NOT_FOUND),  # len() 0
        ("touchy_fault", TOOL_FAILED),  # unknown attributes raise: isinstance needs none
        ("touchy_permission_denied", "permission_denied"),
        ("hashless_invalid_input", "invalid_input"),
        ("hashless_fault", TOOL_FAILED),
        ("group_of_codes", TOOL_FAILED),  # an ExceptionGroup is no course class, whatever it holds
        ("course_in_args", TOOL_FAILED),  # rule 3: the raised exception's class alone
        ("deep_cause_chain", TOOL_FAILED),
        ("interrupt_group", PROPAGATES),  # a BaseExceptionGroup is not an Exception (rule 8)
        ("interrupt_and_course_group", PROPAGATES),
    ],
)
def test_an_odd_exception_gets_its_own_class_code_or_propagates(kind, code):
    assert expect(scenario(raises(kind))).outcomes == ((code,),)


@pytest.mark.parametrize(
    "maker", ["returned_not_found", "returned_key_error", "returned_interrupt"]
)
def test_a_returned_exception_is_a_value_outside_the_vocabulary(maker):
    made = returns_made("placed", at=[], item=maker)
    assert expect(scenario(made)).outcomes == ((INVALID_RESULT,),)


@pytest.mark.parametrize(
    "value",
    [*FAILURE_CODES, {"id": 9, "ok": False, "value": None, "error": NOT_FOUND}],
)
def test_a_value_that_spells_a_failure_is_a_success_with_that_value(value):
    expected = expect(scenario(returns(value)))
    assert expected.outcomes == ((SUCCESS,),)
    assert same_json(untag(expected.value), value)


def test_a_handler_returning_its_arguments_succeeds_with_them_at_every_call():
    built = scenario(returns_arguments(), arguments={"q": [1, {"r": "s"}]}, repeat=2)
    expected = expect(built)
    assert expected.outcomes == ((SUCCESS,), (SUCCESS,))
    assert same_json(untag(expected.value), {"q": [1, {"r": "s"}]})


def test_a_nested_call_is_expected_on_its_own_request_budget_and_tools():
    inner = scenario(returns({"n": 1}), request_id=7, max_result_bytes=5)
    expected = expect(scenario(nests(inner, value="x" * 20), max_result_bytes=22))
    assert expected.outcomes == ((SUCCESS,),)  # 22 bytes: its own budget, not the inner 5
    assert expected.inner["probe"].outcomes == ((RESULT_TOO_LARGE,),)  # 7 bytes over 5
    assert every_call(scenario(nests(inner)), expected) == {"probe": 1, "probe/probe": 1}


def test_a_tool_returning_the_inner_value_returns_none_after_a_failure():
    failing = scenario(raises("not_found"), request_id=7)
    expected = expect(scenario(nests(failing, then="return_inner")))
    assert expected.inner["probe"].outcomes == ((NOT_FOUND,),)
    assert expected.outcomes == ((SUCCESS,),) and expected.value is None


def test_a_base_exception_of_an_inner_handler_leaves_both_calls():
    interrupted = scenario(raises("keyboard_interrupt"), request_id=7)
    expected = expect(scenario(nests(interrupted, then="raise", exception="not_found")))
    assert expected.outcomes == ((PROPAGATES,),)
    assert expected.inner["probe"].outcomes == ((PROPAGATES,),)


def test_the_tools_of_a_nested_call_that_never_runs_are_not_called():
    never = scenario(nests(scenario(returns(1))))
    never["request"]["tool"] = "missing"
    expected = expect(never)
    assert expected.outcomes == (("unknown_tool",),) and expected.inner == {}
    assert every_call(never, expected) == {"probe": 0, "probe/probe": 0}


def test_two_levels_of_nesting_are_expected_by_their_keys():
    deepest = scenario(returns([1]), request_id="deepest")
    middle = scenario(nests(deepest, then="return_inner"), request_id=2, max_result_bytes=2)
    expected = expect(scenario(nests(middle, then="return_inner")))
    assert set(every_inner(expected)) == {"probe", "probe/probe"}
    assert every_inner(expected)["probe/probe"].outcomes == ((SUCCESS,),)
    assert expected.inner["probe"].outcomes == ((RESULT_TOO_LARGE,),)  # [1] is 3 bytes
    assert expected.outcomes == ((SUCCESS,),) and expected.value is None
