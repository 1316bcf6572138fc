"""Write the benchmark's latest result to the one file the docs link to.

Each run overwrites docs/benchmark-latest.md with what it printed, the command and the date, so
the latest numbers live in one place (docs/benchmark.md links it) and a diff shows what changed.
"""

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

LATEST = Path(__file__).resolve().parent.parent / "docs" / "benchmark-latest.md"


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
