"""A session answers a scenario asked again from its first run, found by the scenario's key."""

from grader.hidden.probes import raises, returns, scenario
from grader.hidden.results import LARGE
from grader.sandbox.observation import scenario_key

pytestmark = []


def test_equal_scenarios_have_one_key_however_they_were_built():
    first = scenario(returns({"a": 1, "b": [2]}), max_result_bytes=10)
    again = scenario(returns({"a": 1, "b": [2]}), max_result_bytes=10)
    reordered = dict(reversed(list(again.items())))
    assert scenario_key(first) == scenario_key(again) == scenario_key(reordered)


def test_any_difference_gives_another_key():
    base = scenario(returns({"n": 1}))
    others = [
        scenario(returns({"n": True})),
        scenario(returns({"n": 1.0})),
        scenario(returns({"n": 1}), max_result_bytes=4096),
        scenario(returns({"n": 1}), request_id=0),
        scenario(raises("value_error")),
        scenario(returns({"n": 1}), repeat=2),
    ]
    keys = {scenario_key(other) for other in others}
    assert scenario_key(base) not in keys
    assert len(keys) == len(others)


def test_a_megabyte_result_is_told_apart_by_its_last_character():
    large = scenario(returns(LARGE))
    longer = scenario(returns([*LARGE, "a"]))
    changed_at_the_end = scenario(returns([*LARGE[:-1], "a" * 99_999 + "b"]))
    assert scenario_key(large) == scenario_key(scenario(returns(list(LARGE))))
    assert len({scenario_key(x) for x in (large, longer, changed_at_the_end)}) == 3


def test_a_request_with_keys_of_several_types_gets_a_key_of_its_own():
    mixed = scenario(returns({"n": 1}))
    mixed["request"] = {**mixed["request"], 1: "one"}
    other = scenario(returns({"n": 1}))
    other["request"] = {**other["request"], 2: "one"}
    assert scenario_key(mixed) == scenario_key({**mixed})
    assert scenario_key(mixed) != scenario_key(other)


def test_a_request_with_its_keys_in_another_order_is_another_scenario():
    # invoke_tool sees the order of the request's keys: one observation must not stand for both.
    first = scenario(returns(1), arguments={"a": 1, "b": 2})
    reordered = scenario(returns(1), arguments={"b": 2, "a": 1})
    reordered["request"] = dict(reversed(list(reordered["request"].items())))
    assert scenario_key(first) != scenario_key(reordered)
    assert scenario_key(first) != scenario_key(scenario(returns(1), arguments={"b": 2, "a": 1}))


def test_the_same_tools_in_another_order_are_another_scenario():
    tools = {"probe": returns(1), "other": raises("value_error")}
    first = {"request": scenario(returns(1))["request"], "tools": tools}
    again = {"request": first["request"], "tools": dict(reversed(list(tools.items())))}
    assert scenario_key(first) != scenario_key(again)


def test_a_scenario_json_cannot_write_is_walked_in_order():
    odd = scenario(returns(1))
    odd["request"] = {**odd["request"], "extra": {1, 2}}  # a set: no JSON for it
    assert scenario_key(odd) == scenario_key(dict(reversed(list(odd.items()))))
    swapped = {**odd, "request": dict(reversed(list(odd["request"].items())))}
    assert scenario_key(odd) != scenario_key(swapped)
