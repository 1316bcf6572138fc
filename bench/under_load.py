"""Grade a class of correct copies on a busy machine: every copy must get full marks.

    python -m bench.under_load [--copies 40] [--jobs 2] [--others 2] [--busy 8] [--seconds 900]

The class is graded with `python -m grader grade --jobs N` while `--others` gradings of classes
of their own run beside it and bench.load's busy machine runs around them all. It prints, for
the class under test and each other grading, how many copies got full marks and how many tests
timed out, and exits 1 when any copy lost a point. `--idle` grades the class alone, no load.
"""

import argparse
import csv
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.load import Load, busy_machine
from bench.make_class import write_student
from course.manifest import load_course
from grader.paths import SUBMISSIONS

REFERENCE = SUBMISSIONS / "correct" / "reference.py"


def write_copies(root: Path, copies: int) -> Path:
    """Write `copies` students, each the reference as the last step's cell; return the folder."""
    course = load_course()
    source = REFERENCE.read_text(encoding="utf-8")
    for n in range(copies):
        write_student(root / f"copy-{n:03d}" / course.assignment, source, course)
    return root


def grade_command(folder: Path, out: Path, jobs: int) -> list[str]:
    """Return the command that grades every student under `folder` into `out`."""
    students = sorted(str(path) for path in folder.iterdir())
    return [
        sys.executable,
        "-m",
        "grader",
        "grade",
        *students,
        "--out",
        str(out),
        "--jobs",
        str(jobs),
    ]


def tally(out: Path) -> tuple[int, int, int]:
    """Return (copies, copies at full marks, tests timed out) of a graded folder."""
    with (out / "grades.csv").open(encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    full = sum(1 for row in rows if row["score"] == row["max_score"])
    timeouts = 0
    for record in (out / ".resume").glob("*.json"):  # the kept results, with every status
        outcomes = json.loads(record.read_text(encoding="utf-8")).get("outcomes", ())
        timeouts += sum(1 for outcome in outcomes if outcome["status"] == "timeout")
    return len(rows), full, timeouts


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """Read the command line."""
    parser = argparse.ArgumentParser(prog="python -m bench.under_load", description=__doc__)
    parser.add_argument("--copies", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--others", type=int, default=2, help="other gradings beside it")
    parser.add_argument("--busy", type=int, default=8, help="busy programs, a session each")
    parser.add_argument("--memory-mb", type=int, default=4096)
    parser.add_argument("--seconds", type=float, default=900, help="the load's longest life")
    parser.add_argument("--idle", action="store_true", help="grade alone, with no load")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Grade the classes as the arguments say; print what each got."""
    args = parse_arguments(argv)
    load = Load(busy=args.busy, memory_mb=args.memory_mb)
    others = 0 if args.idle else args.others
    with tempfile.TemporaryDirectory(prefix="grader-under-load-") as scratch:
        root = Path(scratch)
        classes = [write_copies(root / f"class-{n}", args.copies) for n in range(1 + others)]
        outs = [root / f"out-{n}" for n in range(1 + others)]
        started = time.monotonic()
        load_block = busy_machine(load, args.seconds) if not args.idle else _nothing()
        with load_block:
            runs = [
                subprocess.Popen(grade_command(folder, out, args.jobs), stdout=subprocess.DEVNULL)
                for folder, out in zip(classes, outs, strict=True)
            ]
            for process in runs:
                process.wait()
        took = time.monotonic() - started
        lost = 0
        for n, out in enumerate(outs):
            copies, full, timeouts = tally(out)
            name = "class under test" if n == 0 else f"other grading {n}"
            print(f"{name}: {full} of {copies} copies at full marks, {timeouts} tests timed out")
            lost += copies - full
        print(f"{took:.1f} s on the wall clock" + (" (idle)" if args.idle else ""))
    return 1 if lost else 0


class _nothing:
    """A block that does nothing: the idle run."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *_exc: object) -> None:
        return None


if __name__ == "__main__":
    raise SystemExit(main())
