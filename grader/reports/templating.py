"""The one Jinja2 environment the feedback pages and the class report are rendered with.

Autoescape is on for every template, so a student id or a test's sentence is escaped wherever a
template puts it; what a template is given is plain data (texts, numbers, ids, link targets),
never HTML, except the few fragments marked Markup where they are built (the charts, the section
on similar code), each of which escapes its own texts. StrictUndefined turns a misspelt name into
an error rather than an empty string. The templates are package data (pyproject.toml), and the
Gradescope bundle carries them with the grader (grader/integrations/gradescope.py).
"""

from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any, TextIO

from jinja2 import Environment, PackageLoader, StrictUndefined, Template


@cache
def environment() -> Environment:
    """Return the environment, made on first use: grading that writes no page never loads it."""
    return Environment(
        loader=PackageLoader("grader.reports", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def template(name: str) -> Template:
    """Return the template `name` of grader/reports/templates/."""
    return environment().get_template(name)


def render(name: str, context: Mapping[str, Any]) -> str:
    """Return the template `name` rendered with `context`, as one string (a small page)."""
    return template(name).render(context)


def stream(out: TextIO, name: str, context: Mapping[str, Any]) -> None:
    """Write the template `name` rendered with `context` to `out`, a chunk at a time.

    Template.generate() yields the page as the template runs, so a long page (a class of
    thousands) is never held as one string.
    """
    chunks: Iterator[str] = template(name).generate(context)
    out.writelines(chunks)
