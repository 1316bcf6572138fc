"""Step 6's call counter: pick how a handler behaves, press "call", count the handler's runs.

Every press calls the student's `call_once` once, with a handler wrapped in the course's
`CallCounter`. Whatever the handler does, the count should go up by exactly one per press; the
flaky handler, which fails the first time only, is the one a retry would hide.
"""

import html
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from course.carry.execute import Namespace
from course.checks.harness import StudentFunction, safe_text, show
from course.supplied import NotFoundError
from course.tools import Arguments, CallCounter
from course.widgets import (
    LABEL_STYLE,
    CheckVerdicts,
    button,
    html_views,
    not_defined,
    not_finished,
    student_function,
)


def _succeeds(attempt: int) -> dict[str, Any]:
    return {"sent": True, "to": "ana@example.com"}


def _not_found(attempt: int) -> dict[str, Any]:
    raise NotFoundError("no mailbox for ana@example.com")


def _bug(attempt: int) -> dict[str, Any]:
    raise KeyError("smtp-relay-7")


def _flaky(attempt: int) -> dict[str, Any]:
    if attempt == 1:
        raise TimeoutError("the mail server did not answer in time")
    return {"sent": True, "to": "ana@example.com"}


# Label → behaviour; each behaviour gets the attempt number (1 for the handler's first run).
# How a handler acts on its run number `attempt` (1 for its first run).
Behaviour = Callable[[int], dict[str, Any]]
BEHAVIOURS: tuple[tuple[str, Behaviour], ...] = (
    ("succeeds", _succeeds),
    ("raises NotFoundError (an expected failure)", _not_found),
    ("raises KeyError (a bug)", _bug),
    ("flaky: fails the first time, then succeeds", _flaky),
)


class ActingHandler:
    """A handler that acts out a behaviour, telling it which run this is (1 for the first)."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.runs = 0

    def __call__(self, arguments: Arguments) -> dict[str, Any]:
        self.runs += 1
        return self.behaviour(self.runs)


def counted_handler(behaviour: Behaviour) -> CallCounter:
    """Return a CallCounter around a handler that acts out `behaviour`."""
    return CallCounter(ActingHandler(behaviour))


def describe_outcome(outcome: object) -> str:
    """Say in words what `call_once` returned."""
    if not isinstance(outcome, tuple | list) or len(outcome) != 2:
        return f"⚠ <code>call_once</code> returned {html.escape(show(outcome))}, not a pair."
    ok, result = outcome
    if ok is True:
        return f"<code>call_once</code> returned <code>(True, {html.escape(show(result))})</code>."
    if ok is False and isinstance(result, BaseException):
        return (
            f"<code>call_once</code> returned <code>(False, {type(result).__name__}(…))</code>: "
            "the failure is reported, not retried."
        )
    return f"⚠ <code>call_once</code> returned {html.escape(show(outcome))}."


def run_call_once(call_once: StudentFunction | None, counter: CallCounter) -> str:
    """Call the student's `call_once` once; return a sentence about its outcome."""
    if call_once is None:
        return not_defined("call_once")
    try:
        outcome = call_once(counter, {"to": "ana@example.com"})
    except NotImplementedError:
        return not_finished("call_once", then="press call again")
    except Exception as error:
        return (
            f"⚠ Your <code>call_once</code> let <code>{type(error).__name__}</code> escape "
            f"({html.escape(safe_text(error))}); it should return <code>(False, exception)</code>."
        )
    return describe_outcome(outcome)


def count_line(total: int, this_press: int) -> str:
    """Say how many times the handler ran, in all and for the last press."""
    if this_press == 1:
        verdict = "This press ran it ✓ exactly once."
    elif this_press == 0:
        verdict = "This press did not run it."
    else:
        verdict = f"⚠ This press ran it {this_press} times: that is a retry."
    return f"Handler runs so far: <b>{total}</b>. {verdict}"


def no_retry_explorer(namespace: Namespace) -> widgets.VBox:
    """Return a widget that calls the student's `call_once` on a handler of a chosen behaviour.

    `namespace` is the notebook's `globals()`, where `call_once` is looked up at each press.
    """
    labels = [label for label, _behaviour in BEHAVIOURS]
    behaviour_pick = widgets.Dropdown(
        options=labels,
        value=labels[0],
        description="Handler:",
        style=LABEL_STYLE,
        layout=widgets.Layout(width="max-content"),
    )
    behaviour_pick.add_class("no-retry-behaviour")
    call_button = button("call", "no-retry-call")
    counter_line, result_line, check = html_views(
        "no-retry-counter", "no-retry-result", "no-retry-check"
    )
    verdicts = CheckVerdicts()
    state = {}

    def start_over(_change: object = None) -> None:
        state["counter"] = counted_handler(dict(BEHAVIOURS)[behaviour_pick.value])
        counter_line.value = "Handler runs so far: <b>0</b>. Press call."
        result_line.value = ""
        check.value = verdicts.line("call_once", student_function(namespace, "call_once"))

    def press(_button: object = None) -> None:
        call_once = student_function(namespace, "call_once")
        counter = state["counter"]
        before = counter.calls
        result_line.value = run_call_once(call_once, counter)
        counter_line.value = count_line(counter.calls, counter.calls - before)
        check.value = verdicts.line("call_once", call_once)

    behaviour_pick.observe(start_over, names="value")
    call_button.on_click(press)
    start_over()
    controls = widgets.HBox([behaviour_pick, call_button])
    box = widgets.VBox([controls, counter_line, result_line, check])
    box.add_class("no-retry-explorer")
    return box
