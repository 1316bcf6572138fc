"""Every relative link in README.md, CONTRIBUTING.md and docs/ leads to a file that exists.

Links are read with mistune (the Markdown parser nbconvert brings, pinned with it), so a link
written inside a code block or code span is not taken for one.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import mistune
import pytest

from grader.paths import PROJECT_ROOT

pytestmark = []

PAGES = [
    PROJECT_ROOT / "README.md",
    PROJECT_ROOT / "CONTRIBUTING.md",
    *sorted((PROJECT_ROOT / "docs").glob("*.md")),
]


def link_targets(markdown: str) -> list[str]:
    """Return the address of every link and image in a Markdown text, in order."""
    parse = mistune.create_markdown(renderer="ast")

    def walk(tokens: list[dict[str, Any]]) -> Iterator[str]:
        for token in tokens:
            if token["type"] in {"link", "image"}:
                yield token["attrs"]["url"]
            yield from walk(token.get("children", []))

    return list(walk(parse(markdown)))  # type: ignore[arg-type]


def broken_links(page: Path) -> list[str]:
    """Return the relative links of a page whose file does not exist."""
    broken = []
    for target in link_targets(page.read_text(encoding="utf-8")):
        address = urlsplit(target)
        if address.scheme or address.netloc or not address.path:
            continue  # a web address, or an anchor in the same page
        if not (page.parent / unquote(address.path)).exists():
            broken.append(target)
    return broken


def test_a_link_in_a_code_block_or_span_is_not_a_link():
    text = "[real](a.md)\n\n    [indented](b.md)\n\n`[span](c.md)`\n\n| [cell](d.md#part) |\n"
    assert link_targets(text) == ["a.md", "d.md#part"]


def test_a_missing_file_is_reported_and_anchors_and_web_addresses_are_not(tmp_path):
    (tmp_path / "there.md").write_text("# There\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md#there) [gone](gone.md) [web](https://example.org/x.md) [top](#page)\n",
        encoding="utf-8",
    )
    assert broken_links(page) == ["gone.md"]


def test_the_readme_links_every_page_in_docs():
    linked = {Path(t).name for t in link_targets((PROJECT_ROOT / "README.md").read_text("utf-8"))}
    assert {page.name for page in (PROJECT_ROOT / "docs").glob("*.md")} <= linked


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_relative_link_leads_to_a_file_that_exists(page):
    assert broken_links(page) == []
