"""The lessons' explorers: interactive widgets built on the student's own functions.

Every explorer takes the notebook's namespace (`globals()`) and looks the student's functions up
by name each time it shows something, so re-running an exercise cell is enough to explore the
new version, and a kernel that lost them (a restart) gets a sentence instead of a traceback.
Every explorer also shows the visible check's verdict on the function it explores, so it never
praises code the check rejects (nor a function its cell no longer defines). An explorer with a
text box says beside it that Ctrl+S typed there goes to the box and does not save the notebook:
ipywidgets keeps the keys typed in its boxes from JupyterLab, whatever the course does.
"""

import html
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from course.carry.execute import Namespace
from course.checks.harness import CheckReport, StudentFunction

# Descriptions at their natural width, so no label is cut off with an ellipsis.
LABEL_STYLE = {"description_width": "initial"}
SAVE_NOTE = (
    "⚠ Ctrl+S typed in a text box of this explorer goes to the box and does not save the "
    "notebook: click outside the box first, or use File → Save Notebook."
)


def save_note() -> widgets.HTML:
    """Return the note every explorer with a text box shows beside it (class "save-note")."""
    view = widgets.HTML(f"<small>{html.escape(SAVE_NOTE)}</small>")
    view.add_class("save-note")
    return view


def button(description: str, css_class: str, **options: Any) -> widgets.Button:
    """Return a button as wide as its words (ipywidgets cuts longer words off with "…").

    `css_class` is the name the page's style and the browser tests know the button by.
    """
    part = widgets.Button(description=description, layout=widgets.Layout(width="auto"), **options)
    part.add_class(css_class)
    return part


def html_views(*css_classes: str) -> list[widgets.HTML]:
    """Return one empty HTML view per CSS class, each named by its class."""
    views = [widgets.HTML() for _ in css_classes]
    for view, css_class in zip(views, css_classes, strict=True):
        view.add_class(css_class)
    return views


def student_function(namespace: Namespace, name: str) -> StudentFunction | None:
    """Return the student's function `name` from the notebook's namespace, or None."""
    function = namespace.get(name)
    return function if callable(function) else None


def not_finished(name: str, then: str = "run this cell again") -> str:
    """Say, as HTML, that the student's `name` still raises NotImplementedError, and what to do."""
    return (
        f"Your <code>{name}</code> is not finished yet. Finish its exercise cell, run it, then "
        f"{then}."
    )


def not_defined(name: str) -> str:
    """Say, as HTML, that the student's `name` is not in this kernel, and what to run."""
    return (
        f"Your <code>{name}</code> is not defined in this kernel: run its exercise cell (after a "
        "kernel restart, run the notebook from the top: Run → Run All Cells), then use the "
        "explorer again."
    )


class CheckVerdicts:
    """The visible check's verdict on each version of a student's function, worked out once."""

    def __init__(self) -> None:
        self.known: dict[Callable[..., Any], CheckReport] = {}

    def line(self, name: str, function: StudentFunction | None) -> str:
        """Return one HTML line: the function passes its step's check, or the first miss."""
        from course.checks import CHECKS, stale_message  # the checks import the widgets' neighbours
        from course.manifest import load_course

        if function is None:
            return not_defined(name)
        step = load_course().step_defining(name)
        stale = stale_message(name, step) if step is not None else None
        if stale:
            return f"⚠ {html.escape(stale)}"
        if function not in self.known:
            self.known[function] = CHECKS[name](function)
        report = self.known[function]
        if report.ok:
            return (
                f"✓ The check of this step passes on your <code>{name}</code> "
                f"({report.total} of {report.total} cases)."
            )
        return (
            f"⚠ The check of this step does not pass on your <code>{name}</code> yet: "
            f"{html.escape(report.summary())} Run the check cell for the details."
        )
