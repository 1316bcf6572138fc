"""Write the benchmark's latest result to the one file the docs link to.

Each run overwrites docs/benchmark-latest.md with what it printed, the command and the date, so
the latest numbers live in one place (docs/benchmark.md links it) and a diff shows what changed.
A smaller measurement (`python -m bench.similarity`) rewrites its own section of
docs/benchmark.md instead, between two markers naming it: its figures are never typed by hand.
"""

import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"
LATEST = DOCS / "benchmark-latest.md"
METHOD = DOCS / "benchmark.md"


def latest_text(lines: Sequence[str], command: str, when: datetime) -> str:
    """Return the Markdown page for one run: its date, its command and its printed tables."""
    body = "\n".join(f"    {line}" if line else "" for line in lines)
    return (
        "# The benchmark's latest result\n\n"
        "Written by `make bench` (`bench/latest.py`) at every run; the method is in\n"
        "[benchmark.md](benchmark.md). Wall times on a shared machine vary by tens of percent:\n"
        "compare ratios taken in one run.\n\n"
        f"Measured {when:%Y-%m-%d %H:%M %Z} with `{command}`:\n\n"
        f"{body}\n"
    )


def write_latest(lines: Sequence[str], command: str, when: datetime, path: Path = LATEST) -> Path:
    """Write the page for one run to path (by default docs/benchmark-latest.md) and return it."""
    path.write_text(latest_text(lines, command, when), encoding="utf-8")
    return path


def section_markers(name: str) -> tuple[str, str]:
    """Return the lines that open and close the section the command `name` rewrites."""
    return (
        f"<!-- begin {name}: written by `python -m {name}`, not by hand -->",
        f"<!-- end {name} -->",
    )


def section_text(name: str, lines: Sequence[str], command: str, when: datetime) -> str:
    """Return the section for one run of `name`, its markers included: date, command, lines."""
    begin, end = section_markers(name)
    body = "\n".join(f"    {line}" if line else "" for line in lines)
    return f"{begin}\nMeasured {when:%Y-%m-%d} with `{command}`:\n\n{body}\n{end}"


def write_section(
    name: str, lines: Sequence[str], command: str, when: datetime, path: Path = METHOD
) -> Path:
    """Replace the section of `path` (by default docs/benchmark.md) that `name` rewrites."""
    text = path.read_text(encoding="utf-8")
    begin, end = section_markers(name)
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.DOTALL)
    if len(pattern.findall(text)) != 1:
        raise ValueError(f"{path} holds no single section between {begin!r} and {end!r}")
    section = section_text(name, lines, command, when)
    path.write_text(pattern.sub(lambda _match: section, text), encoding="utf-8")
    return path
