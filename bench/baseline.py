"""A copy of the grader as it was at an earlier revision, to measure side by side with this one.

    with baseline_tree("d1eb81e") as tree:   # a git worktree of that revision, removed after
        run_grader(tree, ...)

The copy runs with this project's virtual environment and with this project's hidden tests
(grader/hidden), so only the way it runs them differs: the protocol, not the verdicts' rules.
With `own_suite`, it keeps the hidden tests of its revision instead: what a change of the
suite itself costs (more scenarios, say), when the two suites no longer give the same grades.
"""

import contextlib
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from bench.measure import PROJECT


class BaselineError(Exception):
    """The revision could not be checked out (not a git clone, or no such revision)."""


@contextlib.contextmanager
def baseline_tree(revision: str, own_suite: bool = False) -> Iterator[Path]:
    """Yield a checkout of `revision` beside this project, sharing its virtual environment."""
    with tempfile.TemporaryDirectory(prefix="bench-baseline-") as folder:
        tree = Path(folder) / "tree"
        git = ["git", "-C", str(PROJECT)]
        done = subprocess.run(
            [*git, "worktree", "add", "--detach", str(tree), revision],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise BaselineError(f"cannot check out {revision!r}: {done.stderr.strip()}")
        try:
            (tree / ".venv").symlink_to(PROJECT / ".venv")
            if not own_suite:
                shutil.rmtree(tree / "grader" / "hidden")
                shutil.copytree(PROJECT / "grader" / "hidden", tree / "grader" / "hidden")
            yield tree
        finally:
            subprocess.run(
                [*git, "worktree", "remove", "--force", str(tree)], capture_output=True, check=False
            )
