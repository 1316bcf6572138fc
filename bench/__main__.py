"""Benchmark: `python -m grader grade` against `nbgrader autograde` on the same generated class.

    .venv/bin/python -m bench [--sizes 50,200,1000] [--jobs 1,2] [--nbgrader-sample 10]

For each class size N it generates N nbgrader-style submissions (bench/make_class.py), grades
them with the grader at each --jobs value, and grades the first --nbgrader-sample of them with
nbgrader autograde through the course's own nbgrader set-up (nbgrader_config.py). It checks
that both give every sampled student the same points in every category, then prints seconds
per submission, seconds per submission per core, throughput, the speed-up over nbgrader and the
peak memory of the whole process tree. It exits 1 if the two graders disagree.
"""

import argparse
import sys
import tempfile
from pathlib import Path

from bench.compare import compare_points, grader_points, nbgrader_points
from bench.make_class import make_class
from bench.measure import run_grader, run_nbgrader


def parse_arguments(argv):
    """Read the sizes, job counts and nbgrader sample size."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="50,200,1000", help="class sizes (default 50,200,1000)")
    parser.add_argument("--jobs", default="1,2", help="grader --jobs values (default 1,2)")
    parser.add_argument(
        "--nbgrader-sample",
        type=int,
        default=10,
        help="students graded by nbgrader at each size (default 10; it takes seconds each)",
    )
    args = parser.parse_args(argv)
    args.sizes = [int(n) for n in args.sizes.split(",")]
    args.jobs = [int(n) for n in args.jobs.split(",")]
    return args


def bench_size(size, args, workdir):
    """Grade one generated class both ways; return the printed rows and whether they agree."""
    root = workdir / f"class-{size}"
    students = make_class(root, size)
    rows, agree = [], True
    nbgrader = run_nbgrader(root, students[: args.nbgrader_sample])
    nb_points = nbgrader_points(nbgrader.course_root, students[: args.nbgrader_sample])
    for jobs in args.jobs:
        ours = run_grader(root, workdir / f"grades-{size}-j{jobs}", jobs)
        problems = compare_points(grader_points(ours.out_dir), nb_points)
        agree = agree and not problems
        for problem in problems:
            print(f"  disagreement at N={size}, jobs={jobs}: {problem}")
        per_sub = ours.seconds / size
        rows.append(
            f"{size:>5}  {jobs:>4}  {per_sub:8.3f}  {per_sub * jobs:12.3f}  "
            f"{size / ours.seconds:10.1f}  {ours.peak_mib:8.0f}  "
            f"{nbgrader.seconds / len(nb_points):9.2f} ({len(nb_points):>3})  "
            f"{nbgrader.seconds / len(nb_points) / per_sub:7.0f}x  {nbgrader.peak_mib:8.0f}"
        )
    return rows, agree


def main(argv=None):
    """Run the benchmark and print its table."""
    args = parse_arguments(argv)
    header = (
        "    N  jobs  s/sub     s/sub/core    sub/s       peak MiB  nbgrader s/sub (n)   "
        "speed-up  nb MiB"
    )
    print(header)
    agree = True
    with tempfile.TemporaryDirectory(prefix="bench-") as folder:
        for size in args.sizes:
            rows, size_agrees = bench_size(size, args, Path(folder))
            agree = agree and size_agrees
            for row in rows:
                print(row, flush=True)
    print("both graders agree on every sampled student" if agree else "GRADERS DISAGREE")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
