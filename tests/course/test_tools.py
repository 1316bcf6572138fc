"""The example tools behave as the lessons describe them, on the supplied records."""

import json

import pytest

from course.supplied import InvalidInputError, NotFoundError, PermissionDeniedError
from course.tools import PRIVATE_MARKER, RECORDS_DIR, CallCounter, FixtureTools, fixture_tools

pytestmark = []


def test_records_hold_japanese_accented_latin_and_emoji_text():
    text = "".join(path.read_text(encoding="utf-8") for path in RECORDS_DIR.glob("*.json"))
    assert "東京" in text
    assert "é" in text
    assert "🚀" in text


def test_lookup_finds_a_user_and_raises_not_found_for_an_unknown_id():
    tools = fixture_tools()
    assert tools["lookup_user"]({"user_id": "u-001"})["name"] == "山田 花子"
    with pytest.raises(NotFoundError):
        tools["lookup_user"]({"user_id": "u-404"})


def test_argument_checks_raise_invalid_input():
    tools = fixture_tools()
    with pytest.raises(InvalidInputError):
        tools["lookup_user"]({"user_id": 7})
    with pytest.raises(InvalidInputError):
        tools["convert_temperature"]({"celsius": -300})
    assert tools["convert_temperature"]({"celsius": 100}) == {"celsius": 100, "fahrenheit": 212.0}


def test_a_private_document_is_refused_to_anyone_but_its_owner():
    tools = fixture_tools()
    assert tools["read_document"]({"document_id": "d-001", "as_user": "u-001"})["title"]
    with pytest.raises(PermissionDeniedError):
        tools["read_document"]({"document_id": "d-001", "as_user": "u-002"})


def test_team_roster_hands_out_the_records_own_nested_lists():
    store = FixtureTools()
    roster = store.team_roster({"team_id": "t-100"})
    roster["members"][0].append("changed")
    assert store.teams["t-100"]["members"][0][-1] == "changed"


def test_export_everything_is_larger_than_the_default_budget():
    value = fixture_tools()["export_everything"]({})
    assert len(json.dumps(value, ensure_ascii=False).encode("utf-8")) > 4096


def test_user_tags_returns_a_set_outside_the_vocabulary():
    assert isinstance(fixture_tools()["user_tags"]({"user_id": "u-004"}), set)


def test_the_bug_is_a_builtin_key_error_carrying_the_private_marker():
    with pytest.raises(KeyError) as caught:
        fixture_tools()["usage_stats"]({"user_id": "u-001"})
    assert type(caught.value) is KeyError
    assert PRIVATE_MARKER in str(caught.value)


def test_each_call_of_fixture_tools_gets_its_own_records():
    first, second = fixture_tools(), fixture_tools()
    first["team_roster"]({"team_id": "t-100"})["members"].clear()
    assert second["team_roster"]({"team_id": "t-100"})["members"]


def test_the_call_counter_counts_every_call_even_when_the_handler_raises():
    counter = CallCounter(fixture_tools()["lookup_user"])
    counter({"user_id": "u-001"})
    with pytest.raises(NotFoundError):
        counter({"user_id": "nobody"})
    assert counter.calls == 2
