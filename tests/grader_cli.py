"""Runs `python -m grader ...` as an instructor would, for every test folder that needs the CLI.

It lives at the top of tests/, which tests/conftest.py puts on the path, so that the grader's,
the browser's and the nbgrader tests run the command line one way.
"""

import csv
import subprocess
import sys
from pathlib import Path

from grader.paths import PROJECT_ROOT


def run_grader(
    *args: object, cwd: Path = PROJECT_ROOT, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """Run `python -m grader` with `args` in `cwd`; return the finished process, exit as it may."""
    return subprocess.run(
        [sys.executable, "-m", "grader", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def read_grades(out: Path) -> dict[str, dict[str, str]]:
    """Return the rows of the run's grades.csv in `out`, by student."""
    with (out / "grades.csv").open(encoding="utf-8", newline="") as stream:
        return {row["student"]: row for row in csv.DictReader(stream)}
