"""Benchmark: the grader against its own earlier protocol, nbgrader and a bare Jupyter kernel.

    .venv/bin/python -m bench [--sizes 50,200,1000] [--jobs 1,2] [--baseline REV]
                              [--baseline-suite this|own] [--nbgrader-sample 10]
                              [--latency-runs 5]

Everything is measured side by side in the same run, on generated nbgrader-style classes
(bench/make_class.py): for each class size N and each --jobs value, this grader and (with
--baseline) the grader at git revision REV grade the same class in turn; their wall time,
whole-tree processor time (a cgroup's count, workers in their namespaces included) and peak
memory (of the grader's own process and of its whole tree) are printed, and their grades must
agree (unless `--baseline-suite own` lets the baseline keep its own hidden tests); then each
grades its finished class again into the same folder ("again": every result is reused, so this
measures resuming). Then `nbgrader autograde` grades a sample of the same class, a bare Jupyter
kernel runs one cell, and one submission is graded end to end (the Gradescope case). It exits 1
if any two graders disagree on any student's points. What it prints is also written to
docs/benchmark-latest.md (bench/latest.py).
"""

import argparse
import shutil
import statistics
import sys
import tempfile
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path

from bench.baseline import BaselineError, baseline_tree
from bench.compare import Points, compare_points, grader_points, nbgrader_points
from bench.latest import write_latest
from bench.make_class import CATALOGUE, make_class
from bench.measure import (
    PROJECT,
    Measurement,
    grade_command,
    measured,
    run_bare_kernel,
    run_grader,
    run_nbgrader,
)
from grader.install.bytecode import write_bytecode

HEADER = "    N  jobs  grader          wall s/sub  s/sub/core  cpu s/sub  main MiB  tree MiB"


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """Read the sizes, job counts, baseline and sample sizes."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="50,200,1000", help="class sizes (default 50,200,1000)")
    parser.add_argument("--jobs", default="1,2", help="grader --jobs values (default 1,2)")
    parser.add_argument(
        "--baseline",
        metavar="REV",
        help="also grade every class with the grader at this git revision, side by side",
    )
    parser.add_argument(
        "--baseline-suite",
        choices=("this", "own"),
        default="this",
        help="the hidden tests the baseline runs: this tree's (default), or its own revision's, "
        "to measure a change of the suite itself (grades are then not compared)",
    )
    parser.add_argument(
        "--nbgrader-sample",
        type=int,
        default=10,
        help="students graded by nbgrader for the largest size (default 10; seconds each)",
    )
    parser.add_argument(
        "--latency-runs", type=int, default=5, help="runs of one-submission grading (default 5)"
    )
    args = parser.parse_args(argv)
    args.sizes = [int(n) for n in args.sizes.split(",")]
    args.jobs = [int(n) for n in args.jobs.split(",")]
    return args


def row(size: int, jobs: int, name: str, found: Measurement) -> str:
    """Format one measurement as a row of the table."""
    per_sub = found.seconds / size
    return (
        f"{size:>5}  {jobs:>4}  {name:<14}  {per_sub:10.4f}  {per_sub * jobs:10.4f}  "
        f"{found.cpu_seconds / size:9.4f}  {found.main_peak_mib:8.0f}  {found.peak_mib:8.0f}"
    )


def bench_size(
    size: int, args: argparse.Namespace, workdir: Path, trees: Mapping[str, Path]
) -> tuple[list[str], list[str]]:
    """Grade one generated class with every grader at every --jobs value; return rows, problems."""
    root = workdir / f"class-{size}"
    make_class(root, size)
    submitted = [root / "submitted"]
    rows: list[str] = []
    problems: list[str] = []
    for jobs in args.jobs:
        points: dict[str, Points] = {}
        for name, tree in trees.items():  # in turn, so a drift of the machine hits both
            out_dir = workdir / f"grades-{name}-{size}-{jobs}"
            found = run_grader(tree, submitted, out_dir, jobs)
            rows.append(row(size, jobs, name, found))
            points[name] = grader_points(out_dir)
        for name in points.keys() - {"this"} if args.baseline_suite == "this" else ():
            problems += [f"N={size} jobs={jobs} vs {name}: {p}" for p in compare(points, name)]
    rows += resumed_rows(size, args.jobs[0], workdir, trees)
    return rows, problems


def resumed_rows(size: int, jobs: int, workdir: Path, trees: Mapping[str, Path]) -> list[str]:
    """Grade each grader's finished class again into the same folder: every result is reused.

    What resuming costs (reading every stored result back) must not grow with the class either.
    """
    rows = []
    for name, tree in trees.items():
        out_dir = workdir / f"grades-{name}-{size}-{jobs}"
        before = grader_points(out_dir)
        submitted = [workdir / f"class-{size}" / "submitted"]
        found = run_grader(tree, submitted, out_dir, jobs, resume=True)
        rows.append(row(size, jobs, f"{name}, again", found))
        if grader_points(out_dir) != before:
            rows.append(f"  {name}: the grades changed when the class was graded again")
    return rows


def compare(points: Mapping[str, Points], name: str) -> list[str]:
    """Return where a baseline's points differ from this grader's, student by student."""
    ours, theirs = points["this"], points[name]
    if ours.keys() != theirs.keys():
        return [f"students differ: {sorted(ours.keys() ^ theirs.keys())}"]
    return compare_points(ours, theirs, ("this grader", name))


def latency(trees: Mapping[str, Path], runs: int, workdir: Path) -> dict[str, float]:
    """Return the median seconds to grade one submission end to end, for each grader."""
    submission = workdir / "one" / "ada.py"
    submission.parent.mkdir()
    submission.write_text((CATALOGUE / "correct/reference.py").read_text("utf-8"), "utf-8")
    seconds: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(runs):
        for name, tree in trees.items():
            out_dir = workdir / f"one-{name}"
            shutil.rmtree(out_dir, ignore_errors=True)
            command = grade_command(tree, [submission], out_dir, 1)
            seconds[name].append(measured(command, tree, memory=False).seconds)
    return {name: statistics.median(values) for name, values in seconds.items()}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print its tables."""
    args = parse_arguments(argv)
    problems: list[str] = []
    printed: list[str] = []

    def say(text: str = "") -> None:
        """Print a line, and keep it for docs/benchmark-latest.md."""
        print(text, flush=True)
        printed.extend(text.split("\n"))

    with ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-")))
        trees = {"this": PROJECT}
        if args.baseline:
            try:
                own_suite = args.baseline_suite == "own"
                trees["baseline"] = stack.enter_context(baseline_tree(args.baseline, own_suite))
            except BaselineError as error:
                print(f"bench: {error}", file=sys.stderr)
                return 2
        for tree in trees.values():
            # As `make bench` leaves this project, and alike for every grader compared: the
            # comparison is of the code, not of which one happened to have its bytecode.
            write_bytecode(tree)
        kernel = statistics.median(run_bare_kernel(workdir).seconds for _ in range(3))
        one = latency(trees, args.latency_runs, workdir)
        say(
            "One submission end to end (median): "
            + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in one.items())
        )
        say(f"A bare Jupyter kernel running one cell (median of 3): {kernel:.2f} s\n")
        say(HEADER)
        for size in args.sizes:
            rows, found = bench_size(size, args, workdir, trees)
            problems += found
            for line in rows:
                say(line)
        largest = workdir / f"class-{max(args.sizes)}"
        students = sorted(p.name for p in (largest / "submitted").iterdir())
        sample = students[: args.nbgrader_sample]
        if sample:
            nbgrader = run_nbgrader(largest, sample)
            assert nbgrader.course_root is not None  # where run_nbgrader graded them
            theirs = nbgrader_points(nbgrader.course_root, sample)
            ours = grader_points(workdir / f"grades-this-{max(args.sizes)}-{args.jobs[0]}")
            problems += [f"nbgrader: {p}" for p in compare_points(ours, theirs)]
            say(
                f"\nnbgrader autograde: {nbgrader.seconds / len(sample):.2f} s per submission "
                f"({len(sample)} students), {nbgrader.cpu_seconds / len(sample):.2f} s CPU, "
                f"{nbgrader.peak_mib:.0f} MiB"
            )
    for problem in problems:
        say(f"  disagreement: {problem}")
    if args.baseline and args.baseline_suite == "own":
        say("grades not compared: the baseline ran its own revision's hidden tests")
    else:
        say("every grader agrees on every student" if not problems else "GRADERS DISAGREE")
    command = " ".join(["python -m bench", *(sys.argv[1:] if argv is None else argv)])
    print(f"written to {write_latest(printed, command, datetime.now(UTC))}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
