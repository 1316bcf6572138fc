"""Step 5's ownership explorer: edit what `team_roster` returned and watch the fixture.

The fixture tool hands out the very lists its records hold. Editing the handler's own value
edits the fixture with it. Editing a fresh value (the JSON text decoded by the student's
`fresh_value`) leaves the fixture alone, provided each call decodes a brand-new value: a
`fresh_value` that hands out one cached object is caught here, as the check catches it.
"""

import copy
import html
import json
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from course.carry.execute import Namespace
from course.checks.harness import StudentFunction, safe_text, show
from course.tools import FixtureTools
from course.widgets import (
    LABEL_STYLE,
    CheckVerdicts,
    button,
    html_views,
    not_defined,
    student_function,
)

TEAM_IDS = ("t-100", "t-200")


def add_member(value: dict[str, Any]) -> None:
    """The "add a member" edit: append a new pair to the returned members list."""
    value["members"].append(["u-004", "guest"])


def rename_first_member(value: dict[str, Any]) -> None:
    """The "edit a member" edit: change the role inside the first member's nested list."""
    value["members"][0][1] = "on leave"


def _json(value: object) -> str:
    """One line per top-level key, so a roster's nested lists stay readable."""
    if not isinstance(value, dict):
        return html.escape(json.dumps(value, ensure_ascii=False))
    lines = [
        f"  {json.dumps(key, ensure_ascii=False)}: {json.dumps(item, ensure_ascii=False)}"
        for key, item in value.items()
    ]
    return html.escape("{\n" + ",\n".join(lines) + "\n}")


def returned_value(
    service: FixtureTools, team_id: str, fresh_on: bool, fresh_value: StudentFunction | None
) -> tuple[Any, str | None]:
    """Call team_roster once; return (value to edit, None) or (None, a sentence why not)."""
    returned = service.team_roster({"team_id": team_id})
    if not fresh_on:
        return returned, None
    text = json.dumps(returned, ensure_ascii=False)
    if fresh_value is None:
        return None, not_defined("fresh_value")
    try:
        value, again = fresh_value(text), fresh_value(text)
    except NotImplementedError:
        return None, (
            "Your <code>fresh_value</code> is not finished yet, so there is no fresh value to "
            "edit. Finish its exercise cell and run it, or switch the toggle off."
        )
    except Exception as error:
        return None, (
            f"Your <code>fresh_value</code> raised <code>{type(error).__name__}</code>: "
            f"{html.escape(safe_text(error))}"
        )
    if not isinstance(value, dict) or not isinstance(value.get("members"), list):
        return None, (
            f"Your <code>fresh_value</code> returned {html.escape(show(value))}, not the decoded "
            "roster, so there is nothing to edit."
        )
    if shares_objects(value, again):
        return None, (
            "⚠ Your <code>fresh_value</code> returned the same objects for two calls with the "
            "same text, so an edit by one caller would show up for the next. Decode a "
            "brand-new value on every call."
        )
    return value, None


def shares_objects(first: object, second: object) -> bool:
    """Return True when two decoded values share a list or dict, at any depth."""
    if isinstance(first, list | dict) and first is second:
        return True
    if isinstance(first, dict) and isinstance(second, dict):
        pairs = zip(first.values(), second.values(), strict=False)
    elif isinstance(first, list) and isinstance(second, list):
        pairs = zip(first, second, strict=False)
    else:
        return False
    return any(shares_objects(a, b) for a, b in pairs)


def verdict(changed: bool, fresh_on: bool) -> str:
    """One sentence on whether the last edit changed the fixture, and why."""
    if changed and fresh_on:
        return (
            "⚠ The fixture changed even though the value went through "
            "<code>fresh_value</code>: it must decode a new value, sharing nothing."
        )
    if changed:
        return (
            "⚠ The fixture changed. The handler returned its own lists, and editing the "
            "returned value edited the records themselves."
        )
    if fresh_on:
        return (
            "✓ The fixture is unchanged: you edited a fresh value that your fresh_value "
            "decoded from the JSON text."
        )
    return "The fixture is unchanged."


def idle_note(differs_from_start: bool) -> str:
    """What the status says between edits."""
    if differs_from_start:
        return "The fixture still holds an earlier edit. Press reset the fixture to start over."
    return "The fixture is as it started. Edit the returned value to see what happens."


def ownership_explorer(namespace: Namespace) -> widgets.VBox:
    """Return a widget that edits team_roster's returned value, with or without a fresh decode.

    `namespace` is the notebook's `globals()`, where `fresh_value` is looked up at each edit.
    """
    state = {"service": FixtureTools()}
    team_pick = widgets.Dropdown(
        options=list(TEAM_IDS), value=TEAM_IDS[0], description="Team:", style=LABEL_STYLE
    )
    team_pick.add_class("ownership-team")
    fresh_toggle = widgets.RadioButtons(
        options=[
            ("the handler's own value, as team_roster returned it", False),
            ("a fresh value: the JSON text decoded by your fresh_value", True),
        ],
        value=False,
        description="Edit:",
        style=LABEL_STYLE,
        layout=widgets.Layout(width="max-content"),
    )
    fresh_toggle.add_class("ownership-fresh-toggle")
    add_button = button("add a member", "ownership-add")
    edit_button = button("edit the first member", "ownership-edit")
    reset_button = button("reset the fixture", "ownership-reset")
    status, edited, fixture, check = html_views(
        "ownership-status", "ownership-value", "ownership-fixture", "ownership-check"
    )
    verdicts = CheckVerdicts()
    originals = {team: copy.deepcopy(state["service"].teams[team]) for team in TEAM_IDS}

    def record() -> dict[str, Any]:
        return state["service"].teams[team_pick.value]

    def show_fixture(note: str | None = None) -> None:
        fixture.value = (
            f"<b>The fixture's record for {team_pick.value} now holds:</b>"
            f"<pre>{_json(record())}</pre>"
        )
        status.value = note or idle_note(record() != originals[team_pick.value])
        check.value = verdicts.line("fresh_value", student_function(namespace, "fresh_value"))

    def apply(edit: Callable[[dict[str, Any]], None]) -> None:
        fresh_value = student_function(namespace, "fresh_value")
        value, problem = returned_value(
            state["service"], team_pick.value, fresh_toggle.value, fresh_value
        )
        if problem:
            edited.value = ""
            show_fixture(problem)
            return
        before = copy.deepcopy(record())
        edit(value)
        edited.value = f"<b>The value you edited:</b><pre>{_json(value)}</pre>"
        show_fixture(verdict(record() != before, fresh_toggle.value))

    def reset(_button: object = None) -> None:
        state["service"] = FixtureTools()
        edited.value = ""
        show_fixture()

    add_button.on_click(lambda _button: apply(add_member))
    edit_button.on_click(lambda _button: apply(rename_first_member))
    reset_button.on_click(reset)
    team_pick.observe(lambda _change: show_fixture(), names="value")
    fresh_toggle.observe(lambda _change: show_fixture(), names="value")
    show_fixture()
    buttons = widgets.HBox([add_button, edit_button, reset_button])
    views = widgets.HBox([edited, fixture])
    box = widgets.VBox([team_pick, fresh_toggle, buttons, status, views, check])
    box.add_class("ownership-explorer")
    return box
