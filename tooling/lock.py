"""Resolve pyproject.toml's dependency groups into the pinned files under requirements/.

    python -m tooling.lock [--upgrade]      (`make lock`)

requirements/lock.txt pins every package of every group, on every platform (a student's Windows
or macOS too), for Python 3.11 and later: one resolution, so no two installs disagree on a
version. Each installed group then gets requirements/<group>.txt, its closure at the lock's
versions: the Gradescope bundle installs `grader`, the handout `course`, the browser build
`lite` and .venv `dev`. uv resolves, keeping the lock's pins unless pyproject.toml rules them
out; --upgrade takes the newest versions pyproject.toml allows.
"""

import argparse
import subprocess
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

from grader.install.requirements import LOCK, LOCKED_GROUPS, RUNTIME, group_file
from grader.paths import PROJECT_ROOT

PYPROJECT = PROJECT_ROOT / "pyproject.toml"
# The lowest Python the lock holds for, as pyproject.toml's requires-python: Debian 12's python3 is
# 3.11.2, and a package that needs a later 3.11 gets a second pin, marked for the later ones.
PYTHON = "3.11"
COMMON = (
    "--universal",
    "--python-version",
    PYTHON,
    "--no-python-downloads",  # resolving needs no interpreter of that exact version
    "--custom-compile-command",
    "make lock",
    "--quiet",
)


def uv_compile(
    sources: Sequence[str], out: Path, options: Sequence[str] = (), stdin: str = ""
) -> None:
    """Run `uv pip compile` over `sources` into `out`; raise CalledProcessError if it fails."""
    command = [sys.executable, "-m", "uv", "pip", "compile", *sources, *COMMON, *options]
    subprocess.run([*command, "-o", str(out)], input=stdin, text=True, check=True, cwd=PROJECT_ROOT)


def extra_requirements(group: str, pyproject: Path = PYPROJECT) -> list[str]:
    """Return the requirements pyproject.toml lists under the optional dependencies `group`."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    return list(project["optional-dependencies"][group])


def lock(upgrade: bool = False) -> None:
    """Write requirements/lock.txt, then each locked group's file from it."""
    LOCK.parent.mkdir(exist_ok=True)
    uv_compile(["pyproject.toml"], LOCK, ["--all-extras", *(["--upgrade"] if upgrade else [])])
    # The lock's pins are the constraints: a group's file holds its closure, at the same versions.
    pinned = ["--constraint", str(LOCK.relative_to(PROJECT_ROOT)), "--no-annotate"]
    for group in LOCKED_GROUPS:
        out = group_file(group)
        if group == RUNTIME:
            uv_compile(["pyproject.toml"], out, pinned)
        elif group == "dev":  # it takes in other extras by naming the project itself
            uv_compile(["pyproject.toml"], out, [*pinned, "--extra", group])
        else:  # the extra alone, without the grader's own dependencies
            stdin = "\n".join(extra_requirements(group)) + "\n"
            uv_compile(["-"], out, pinned, stdin=stdin)


def main(argv: list[str] | None = None) -> int:
    """Lock, and say which files were written."""
    parser = argparse.ArgumentParser(prog="python -m tooling.lock", description=__doc__)
    parser.add_argument("--upgrade", action="store_true", help="take the newest allowed versions")
    args = parser.parse_args(argv)
    try:
        lock(args.upgrade)
    except subprocess.CalledProcessError as error:
        print(f"error: uv failed ({error.returncode}); see its message above", file=sys.stderr)
        return 1
    names = [LOCK, *(group_file(group) for group in LOCKED_GROUPS)]
    print("Wrote " + ", ".join(str(path.relative_to(PROJECT_ROOT)) for path in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
