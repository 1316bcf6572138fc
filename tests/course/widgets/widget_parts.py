"""Reach into a widget tree by CSS class, and load the reference functions for explorers."""

from pathlib import Path

from course.assemble import exercise_cells, load_course, run_cells

SOLUTIONS = Path(__file__).resolve().parents[3] / "solutions" / "bounded_results"


def all_parts(widget):
    """Yield the widget and every widget inside it."""
    yield widget
    for child in getattr(widget, "children", ()):
        yield from all_parts(child)


def part(widget, css_class):
    """Return the one widget under `widget` that carries `css_class`."""
    (found,) = [each for each in all_parts(widget) if css_class in each._dom_classes]
    return found


def reference_namespace():
    """A fresh notebook namespace holding the reference functions of every step."""
    namespace = {}
    assert run_cells(exercise_cells(SOLUTIONS, load_course()).cells, namespace) == ()
    return namespace
