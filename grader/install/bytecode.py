"""Write the grader's bytecode once, when it is installed, so that no grading process compiles it.

    python -m grader.install.bytecode

Every job is a new Python process. Without bytecode on disk it compiles the grader's modules and
the hidden tests from source before its first student. Python writes bytecode by itself unless
PYTHONDONTWRITEBYTECODE is set, as it is in many containers; and a Gradescope container starts
afresh from its image for every submission, so what a run writes there is lost: the image must
carry it. A stale file is never run (Python checks each source's time and size), so writing it
again after an update only restores speed.
"""

import compileall
import subprocess
import sys
import tempfile
from pathlib import Path

from grader.jobstart import JOB_MODULE, job_environment
from grader.paths import PROJECT_ROOT

PACKAGES = ("grader", "course")  # what grading processes import from the project itself
NO_BYTECODE_VARIABLE = "PYTHONDONTWRITEBYTECODE"


def write_bytecode(root: Path = PROJECT_ROOT) -> None:
    """Compile the project at `root`, then have a job there read its hidden tests.

    `root` may be another checkout of the project (the benchmark's baseline), whose own job
    module lists its own hidden tests. Raise RuntimeError, in one line, if either step fails.
    """
    for package in PACKAGES:
        if not (root / package).is_dir():
            raise RuntimeError(f"{root} holds no {package} package")
        if not compileall.compile_dir(root / package, quiet=1):
            raise RuntimeError(f"{root / package} does not compile")
    # As a grading job starts, except that it may write bytecode of its own.
    environment = job_environment()
    environment.pop(NO_BYTECODE_VARIABLE, None)
    with tempfile.TemporaryDirectory(prefix="grader-bytecode-") as folder:
        listing = [sys.executable, "-m", JOB_MODULE, "--list", str(Path(folder) / "tests.json")]
        done = subprocess.run(
            listing, cwd=root, env=environment, capture_output=True, text=True, check=False
        )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError(f"listing the hidden tests failed: {last}")


def main() -> int:
    """Write the bytecode of this project; say so in one line."""
    try:
        write_bytecode()
    except RuntimeError as error:
        print(f"grader.install.bytecode: {error}", file=sys.stderr)
        return 1
    print(f"Bytecode written for {', '.join(PACKAGES)} and the hidden tests.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
