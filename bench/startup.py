"""Benchmark of the one start-up optimisation kept: jobs started at the command's first line.

    .venv/bin/python -m bench.startup [--runs 15]

Grades one submission (the reference) on the Gradescope path, in an /autograder-like root built
from this project's own bundle, two ways in turn: as run_autograder does
(grader.integrations.gradescope_entry: the job starts before the grader's imports) and without
the job started ahead (grader.integrations.gradescope_run). Prints each one's median wall time
and the median of the paired ratios. The optimisation stays only while it saves at least a
tenth of the submission's end-to-end time (docs/architecture.md).
"""

import argparse
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path

from bench.make_class import CATALOGUE
from bench.measure import PROJECT

ENTRIES = {
    "started ahead": "grader.integrations.gradescope_entry",
    "not ahead": "grader.integrations.gradescope_run",
}
KEEP_BELOW = 0.9  # the optimisation must bring the time under nine tenths of the other's


def autograder_root(folder: Path) -> Path:
    """Lay out `folder` as Gradescope lays out /autograder once setup.sh has run."""
    bundle = folder / "autograder.zip"
    subprocess.run(
        [sys.executable, "-m", "grader", "gradescope-bundle", str(bundle)],
        cwd=PROJECT,
        check=True,
        capture_output=True,
    )
    root = folder / "root"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
    (root / "submission").mkdir()
    (root / "submission" / "reference.py").write_bytes(
        (CATALOGUE / "correct" / "reference.py").read_bytes()
    )
    # The bundle's own venv would take minutes to install: this project's packages stand in.
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    packages = sysconfig.get_path("purelib")
    (site / "autograder-source.pth").write_text(f"{root / 'source'}\n{packages}\n", "utf-8")
    return root


def one_run(root: Path, module: str) -> float:
    """Grade the root's submission with `module`; return the wall seconds it took."""
    python = root / "venv" / "bin" / "python"
    started = time.monotonic()
    subprocess.run(
        [str(python), "-m", module, str(root)],
        cwd=root / "source",
        check=True,
        capture_output=True,
    )
    return time.monotonic() - started


def main(argv: Sequence[str] | None = None) -> int:
    """Time both entries in turn; print medians and the paired ratio; 1 if it does not pay."""
    parser = argparse.ArgumentParser(prog="python -m bench.startup", description=__doc__)
    parser.add_argument("--runs", type=int, default=15, help="runs of each (default 15)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as folder:
        root = autograder_root(Path(folder))
        for module in ENTRIES.values():
            one_run(root, module)  # warm-up: the file cache, the bytecode
        seconds: dict[str, list[float]] = {name: [] for name in ENTRIES}
        for _ in range(args.runs):
            for name, module in ENTRIES.items():  # in turn, so a drift hits both
                seconds[name].append(one_run(root, module))
    ratio = statistics.median(
        ahead / plain
        for ahead, plain in zip(seconds["started ahead"], seconds["not ahead"], strict=True)
    )
    for name, values in seconds.items():
        print(f"{name:>14}: {statistics.median(values):.3f} s (median of {args.runs})")
    print(f"started ahead / not ahead: {ratio:.3f} (paired median; kept below {KEEP_BELOW})")
    return 0 if ratio < KEEP_BELOW else 1


if __name__ == "__main__":
    sys.exit(main())
