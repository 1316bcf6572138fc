"""The report pages' templates: escaped by default, strict about names, and shipped as data."""

import tomllib
from dataclasses import replace
from fnmatch import fnmatch
from html.parser import HTMLParser
from pathlib import Path

import pytest
from grade_builders import CATALOGUE, CLASS
from jinja2 import UndefinedError

from grader.reports import class_page, class_report, templating

pytestmark = []

PROJECT = Path(__file__).resolve().parents[3]
TEMPLATES = PROJECT / "grader" / "reports" / "templates"


def test_every_template_is_package_data():
    config = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["grader"]
    templates = [p.relative_to(PROJECT / "grader").as_posix() for p in TEMPLATES.iterdir()]
    assert templates
    for name in templates:
        assert any(fnmatch(name, pattern) for pattern in patterns), name


def test_the_environment_escapes_what_it_is_given_and_refuses_an_unknown_name():
    environment = templating.environment()
    page = environment.from_string("<p title='{{ words }}'>{{ words }}</p>")
    assert page.render(words="<b>'x'</b>") == (
        "<p title='&lt;b&gt;&#39;x&#39;&lt;/b&gt;'>&lt;b&gt;&#39;x&#39;&lt;/b&gt;</p>"
    )
    with pytest.raises(UndefinedError):
        page.render()


class Titles(HTMLParser):
    """Every title attribute of a page, as a browser reads it."""

    def __init__(self, page):
        super().__init__()
        self.titles = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.titles += [value for name, value in attrs if name == "title"]


def test_a_title_with_an_apostrophe_is_read_whole():
    timed = [replace(CLASS[0], seconds=None), replace(CLASS[1], seconds=0.5)]
    page = class_report.class_report_html(timed, CATALOGUE)
    assert class_page.NOT_TIMED in Titles(page).titles
