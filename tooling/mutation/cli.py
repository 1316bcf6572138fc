"""`python -m tooling.mutation`: make the references' mutants, grade them in one batch, report.

The mutants are mutmut's and our operators' of the reference, and each bug class's (classes.py)
of both the reference and the independently written second reference, whose ids start with
`second-reference-`.

Exit status: 0 when every survivor is recorded as equivalent and every class mutant lost points
in exactly its bug's categories, 1 otherwise (a gap in the hidden suite), 2 when the analysis
could not run (the grader failed, or the unmutated reference or the independently written one
lost points, so no verdict could be trusted).
"""

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grader.paths import PROJECT_ROOT, SUBMISSIONS
from tooling.mutation.classes import class_mutants
from tooling.mutation.classify import (
    GradeRow,
    MutationError,
    judge,
    judge_all,
    load_equivalents,
    parse_grades,
)
from tooling.mutation.generate import Mutant, generate_mutants, write_mutants
from tooling.mutation.report import Summary, format_text, summarize, toml_stub

REFERENCE = SUBMISSIONS / "correct" / "reference.py"
EQUIVALENTS = Path(__file__).resolve().parent / "equivalent.toml"
# The unmutated reference is graded in the same batch: if it does not score full marks, the
# grader (or this machine) is broken and no mutant's verdict means anything. No mutant id can
# take this name, for mutant ids hold a dash.
BASELINE = "baseline"
# An independently written solution, graded beside the baseline: it must score full marks too,
# or the hidden suite asks for more than the contract (or for the reference's own choices).
SECOND_REFERENCE = SUBMISSIONS / "correct" / "second-reference.py"
INDEPENDENT = "independent"
ERROR_EXIT = 2


def build_parser() -> argparse.ArgumentParser:
    """Return the parser for `python -m tooling.mutation`."""
    parser = argparse.ArgumentParser(
        prog="python -m tooling.mutation",
        description="Grade every mutant of the reference solutions; list the survivors.",
    )
    parser.add_argument("--jobs", type=int, default=2, metavar="N", help="grader jobs (2)")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="PREFIX",
        help="grade only mutants whose id starts with PREFIX (a function name, second-reference "
        "or a whole id); repeatable",
    )
    parser.add_argument("--report", type=Path, metavar="FILE", help="also write the report as JSON")
    parser.add_argument(
        "--work",
        type=Path,
        metavar="DIR",
        help="keep the mutants and the grader's reports in DIR, which must be new or empty "
        "(default: a temporary folder, removed afterwards)",
    )
    parser.add_argument(
        "--equivalents",
        type=Path,
        default=EQUIVALENTS,
        metavar="FILE",
        help="the recorded equivalent mutants (default tooling/mutation/equivalent.toml)",
    )
    parser.add_argument(
        "--stub",
        action="store_true",
        help="also print [[equivalent]] entries for the unrecorded survivors, to judge and paste",
    )
    return parser


def select(mutants: list[Mutant], prefixes: list[str]) -> list[Mutant]:
    """Return the mutants whose id starts with one of `prefixes`; all of them when none is given."""
    if not prefixes:
        return mutants
    return [m for m in mutants if any(m.id.startswith(prefix) for prefix in prefixes)]


def grade_folder(folder: Path, out: Path, *, jobs: int) -> dict[str, GradeRow]:
    """Grade every submission in `folder` with one `python -m grader grade` run; return its rows."""
    command = [sys.executable, "-m", "grader", "grade", str(folder), "--out", str(out)]
    command += ["--jobs", str(jobs)]
    # The grader's stdout is a table of every student, which this report replaces; its stderr
    # (the progress bar and any problem) goes through, so a long run shows it is alive.
    result = subprocess.run(
        command, cwd=PROJECT_ROOT, stdout=subprocess.PIPE, text=True, check=False
    )
    grades = out / "grades.csv"
    if result.returncode != 0 or not grades.exists():
        raise MutationError(
            f"{shlex.join(command)} exited {result.returncode}:\n{result.stdout[-2000:]}"
        )
    return parse_grades(grades.read_text(encoding="utf-8"))


def analyse(
    mutants: list[Mutant], reference: str, work: Path, *, jobs: int
) -> tuple[dict[str, GradeRow], list[str]]:
    """Write the mutants and the baseline to `work`, grade them; return the rows and categories."""
    submissions = work / "submissions"
    write_mutants(mutants, submissions)
    (submissions / f"{BASELINE}.py").write_text(reference, encoding="utf-8")
    second = SECOND_REFERENCE.read_text(encoding="utf-8")
    (submissions / f"{INDEPENDENT}.py").write_text(second, encoding="utf-8")
    rows = grade_folder(submissions, work / "grades", jobs=jobs)
    for name, what in ((BASELINE, "the unmutated reference"), (INDEPENDENT, SECOND_REFERENCE.name)):
        row = rows.get(name)
        if row is None or judge(row).killed:
            raise MutationError(
                f"{what} did not score full marks ({row}); "
                f"see {work / 'grades'} (run with --work to keep it)"
            )
    return rows, list(rows[BASELINE].categories)


def run(args: argparse.Namespace) -> Summary:
    """Run the whole analysis for parsed arguments; return its summary."""
    started = time.perf_counter()
    reference = REFERENCE.read_text(encoding="utf-8")
    second = SECOND_REFERENCE.read_text(encoding="utf-8")
    every_mutant = generate_mutants(reference, REFERENCE.name)
    every_mutant += class_mutants(reference, REFERENCE.stem)
    every_mutant += class_mutants(second, SECOND_REFERENCE.stem)
    mutants = select(every_mutant, args.only)
    if not mutants:
        raise MutationError(f"no mutant id starts with {' or '.join(args.only)}")
    equivalents = load_equivalents(args.equivalents)
    if args.work:
        if args.work.exists() and any(args.work.iterdir()):
            # The grader resumes from results already in its output folder, which would give
            # an old mutant's grades to a new mutant of the same id.
            raise MutationError(f"{args.work} is not empty; give a new or empty folder")
        args.work.mkdir(parents=True, exist_ok=True)
        rows, categories = analyse(mutants, reference, args.work, jobs=args.jobs)
    else:
        with tempfile.TemporaryDirectory(prefix="mutation-") as scratch:
            rows, categories = analyse(mutants, reference, Path(scratch), jobs=args.jobs)
    verdicts = judge_all(rows, [m.id for m in mutants])
    summary = summarize(
        mutants,
        verdicts,
        equivalents,
        categories,
        complete_catalogue=len(mutants) == len(every_mutant),
    )
    summary.seconds = time.perf_counter() - started
    return summary


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args = build_parser().parse_args(argv)
    if args.jobs < 1:
        print("error: --jobs must be at least 1", file=sys.stderr)
        return ERROR_EXIT
    try:
        summary = run(args)
    except MutationError as error:
        print(f"error: {error}", file=sys.stderr)
        return ERROR_EXIT
    summary.command = shlex.join(
        ["python", "-m", "tooling.mutation", *(sys.argv[1:] if argv is None else argv)]
    )
    print(format_text(summary))
    if args.stub and summary.unexplained:
        print("\n" + toml_stub(summary.unexplained))
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(
            json.dumps(summary.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    return 1 if summary.failed else 0
