"""What `grade --similarity` costs for a class: reading, fingerprinting and comparing its code.

    python -m bench.similarity [--students 1000] [--threshold 0.5]

The class is bench.make_class's (the lessons, the last step holding a catalogue submission,
about 3 correct, 5 buggy and 2 adversarial in every 10): a hard case, for the catalogue's
submissions are mostly small edits of one another, so most pairs share code and hundreds of
thousands are scored. Writing the class is not timed; the rest is what the option adds to a
grading run (discovery included), measured in this process: wall and processor seconds, the
peak memory, and how many pairs were listed. It prints that line and writes it, with the
command and the date, into docs/benchmark.md's section for it (bench/latest.py).
"""

import argparse
import resource
import shlex
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from bench.latest import write_section
from bench.make_class import make_class
from course.manifest import load_course
from grader.intake.discover import discover
from grader.reports.similarity import write_similarity_csv
from grader.similarity.compare import similarity_of
from grader.similarity.pairs import DEFAULT_THRESHOLD


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.similarity", description=__doc__)
    parser.add_argument("--students", type=int, default=1000, metavar="N")
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD, metavar="SCORE")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Generate a class, compare its code as `grade --similarity` does; print what it cost."""
    args = parse_arguments(argv)
    with tempfile.TemporaryDirectory(prefix="bench-similarity-") as scratch:
        root = Path(scratch)
        make_class(root / "class", args.students)
        course = load_course()
        wall, cpu = time.perf_counter(), time.process_time()
        found = discover([root / "class" / "submitted"], course)
        result = similarity_of(found, course, args.threshold)
        write_similarity_csv(result, root)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    line = (
        f"{args.students} students, threshold {args.threshold:g}: {wall:.1f} s wall, "
        f"{cpu:.1f} s processor, peak {peak} MiB; {result.compared} compared, "
        f"{len(result.pairs)} pairs listed"
    )
    print(line)
    given = sys.argv[1:] if argv is None else argv
    command = shlex.join(["python", "-m", "bench.similarity", *given])
    write_section("bench.similarity", [line], command, datetime.now(UTC))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
