"""The ownership explorer shows the fixture change without a fresh decode, and not with one."""

import json

import ipywidgets as widgets
from builders import part, reference

from course.widgets.ownership import ownership_explorer

pytestmark = []


def unfinished(text):
    raise NotImplementedError()


def test_the_explorer_carries_its_css_classes():
    explorer = ownership_explorer({"fresh_value": reference("fresh_value")})
    assert "ownership-explorer" in explorer._dom_classes
    assert "u-002" in part(explorer, "ownership-fixture").value
    assert "as it started" in part(explorer, "ownership-status").value


def test_editing_the_returned_value_without_a_fresh_decode_changes_the_fixture():
    explorer = ownership_explorer({"fresh_value": reference("fresh_value")})
    part(explorer, "ownership-add").click()
    assert "⚠ The fixture changed" in part(explorer, "ownership-status").value
    assert "guest" in part(explorer, "ownership-fixture").value


def test_with_a_fresh_decode_the_fixture_stays_unchanged():
    explorer = ownership_explorer({"fresh_value": reference("fresh_value")})
    part(explorer, "ownership-fresh-toggle").value = True
    part(explorer, "ownership-edit").click()
    assert "✓ The fixture is unchanged" in part(explorer, "ownership-status").value
    assert "on leave" in part(explorer, "ownership-value").value
    assert "on leave" not in part(explorer, "ownership-fixture").value


def test_reset_restores_the_fixture_after_an_edit():
    explorer = ownership_explorer({"fresh_value": reference("fresh_value")})
    part(explorer, "ownership-add").click()
    part(explorer, "ownership-fresh-toggle").value = True
    assert "still holds an earlier edit" in part(explorer, "ownership-status").value
    part(explorer, "ownership-reset").click()
    assert "guest" not in part(explorer, "ownership-fixture").value
    assert "as it started" in part(explorer, "ownership-status").value


def test_an_unfinished_fresh_value_is_told_plainly_and_edits_nothing():
    explorer = ownership_explorer({"fresh_value": unfinished})
    part(explorer, "ownership-fresh-toggle").value = True
    part(explorer, "ownership-add").click()
    assert "not finished yet" in part(explorer, "ownership-status").value
    assert "guest" not in part(explorer, "ownership-fixture").value


def test_a_fresh_value_that_returns_text_is_told_plainly():
    explorer = ownership_explorer({"fresh_value": lambda text: text})
    part(explorer, "ownership-fresh-toggle").value = True
    part(explorer, "ownership-add").click()
    assert "not the decoded roster" in part(explorer, "ownership-status").value


def test_a_caching_fresh_value_is_not_praised():
    # The issue: a fresh_value that hands out one cached object got "✓ The fixture is unchanged".
    cache = {}

    def caching(text):
        return cache.setdefault(text, json.loads(text))

    explorer = ownership_explorer({"fresh_value": caching})
    part(explorer, "ownership-fresh-toggle").value = True
    part(explorer, "ownership-add").click()
    status = part(explorer, "ownership-status").value
    assert "returned the same objects for two calls" in status
    assert "✓" not in status


def test_the_choice_of_value_is_spelled_out_not_a_shade_of_grey():
    toggle = part(ownership_explorer({}), "ownership-fresh-toggle")
    assert isinstance(toggle, widgets.RadioButtons)
    assert [label for label, _value in toggle.options] == [
        "the handler's own value, as team_roster returned it",
        "a fresh value: the JSON text decoded by your fresh_value",
    ]
