"""The command line's parser: `grade`, `selfcheck` and `gradescope-bundle`, and their options."""

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, TypeVar

from grader.batch.shards import Shard
from grader.integrations import gradescope
from grader.model import RUN_STATUSES, TEST_STATUSES, Limits, UsageError
from grader.outputs import LMS_SYSTEMS
from grader.similarity.pairs import DEFAULT_THRESHOLD

DEFAULTS = Limits()
Number = TypeVar("Number", int, float)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line, like the grader's own."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """Return the parser for `python -m grader`."""
    parser = _Parser(prog="grader", description="Grade invoke_tool submissions.")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)
    grade = commands.add_parser("grade", help="grade submissions and write reports")
    grade.add_argument(
        "submissions",
        nargs="+",
        metavar="SUBMISSION",
        help="a lessons folder, a notebook, a .py file, an nbgrader submitted/ tree, or a "
        "folder of these; or a zip of a lesson's notebooks, as hand_in.py writes it",
    )
    grade.add_argument(
        "--out", required=True, type=Path, metavar="DIR", help="where reports are written"
    )
    grade.add_argument(
        "--jobs", type=_positive(int), default=1, metavar="N", help="parallel jobs (default 1)"
    )
    grade.add_argument(
        "--timeout",
        type=_positive(float),
        default=DEFAULTS.timeout,
        metavar="S",
        help="seconds of its own processor time allowed per submission, a fifth of it per "
        f"test (default {DEFAULTS.timeout:g})",
    )
    grade.add_argument(
        "--memory",
        type=_positive(int),
        default=DEFAULTS.memory_mb,
        metavar="MIB",
        help=f"memory allowed to a submission's process, in MiB (default {DEFAULTS.memory_mb})",
    )
    grade.add_argument(
        "--processes",
        type=_positive(int),
        default=DEFAULTS.processes,
        metavar="N",
        help=f"processes and threads a submission may run at once (default {DEFAULTS.processes})",
    )
    grade.add_argument(
        "--output-limit",
        type=_positive(int),
        default=DEFAULTS.output_limit // 1024,
        metavar="KIB",
        help=f"printed output kept per test, in KiB (default {DEFAULTS.output_limit // 1024})",
    )
    grade.add_argument(
        "--lms",
        choices=LMS_SYSTEMS,
        help="also write grades-canvas.csv or grades-moodle.csv, ready to import",
    )
    grade.add_argument(
        "--roster",
        type=Path,
        metavar="FILE",
        help="the class list nbgrader imports (a CSV with an `id` column): every student on it "
        "gets a row, status missing and 0 points if they sent nothing",
    )
    grade.add_argument(
        "--due",
        metavar="WHEN",
        help="the due date, such as 2026-03-01T23:59+01:00 or '2026-03-01 23:59 Europe/Paris': "
        "grades.csv and the LMS file then count lateness",
    )
    grade.add_argument(
        "--late-policy",
        metavar="POLICY",
        help="with --due: none (record lateness only, the default), zero (a late submission "
        "scores 0) or per-hour:P (P points off per hour or part of one)",
    )
    grade.add_argument(
        "--submitted-at",
        type=Path,
        metavar="FILE",
        help="with --due: each student's hand-in time, a CSV with the columns id and "
        "submitted_at (an LMS's export, or the roster with that column)",
    )
    grade.add_argument(
        "--extensions",
        type=Path,
        metavar="FILE",
        help="with --due: students' own due times, a CSV with the columns student_id and due "
        "(a time) or extra_hours (hours added to --due); the roster may carry the same column",
    )
    grade.add_argument(
        "--comments",
        action="store_true",
        help="add a one-line comment per student to grades.csv and to the Moodle file",
    )
    grade.add_argument(
        "--shard",
        type=Shard.parse,
        metavar="K/N",
        help="grade only the K-th of N deterministic slices of the class (for array jobs on "
        "a cluster); merge the N output folders with --merge",
    )
    grade.add_argument(
        "--merge",
        nargs="+",
        type=Path,
        default=[],
        metavar="SHARD_DIR",
        help="first take every result from these shard output folders, then write the class's "
        "files exactly as one run over the whole class would (grading whatever no shard did)",
    )
    grade.add_argument(
        "--regrade",
        nargs="+",
        default=[],
        choices=sorted({*TEST_STATUSES, *RUN_STATUSES} - {"not_judged", "missing"}),
        metavar="STATUS",
        help="when resuming, also grade again every student whose kept result (or any of its "
        "tests) has one of these statuses; time-outs, crashes and errors always are",
    )
    grade.add_argument(
        "--similarity",
        nargs="?",
        type=_share,
        const=DEFAULT_THRESHOLD,
        metavar="SCORE",
        help="also compare every pair of students' code (the lessons' own code left out): "
        "similarity.csv lists the pairs scoring SCORE or more (0 to 1, default "
        f"{DEFAULT_THRESHOLD:g}) and report.html shows the top ones; a reason to look, never "
        "a verdict, and no grade changes",
    )
    grade.add_argument(
        "--isolation",
        choices=("auto", "bubblewrap", "process"),
        default="auto",
        help="auto: bubblewrap where it works, else a plain process (the summary says which); "
        "bubblewrap: require it, failing with one line where it cannot run; process: force "
        "the weaker fallback",
    )
    grade.add_argument(
        "--allow-unconfined-files",
        action="store_true",
        help="grade even where neither bubblewrap nor Landlock can keep student code from "
        "files: it may then read and change whatever your user may",
    )
    commands.add_parser("selfcheck", help="check the grader against the fixture catalogue")
    bundle = commands.add_parser(
        "gradescope-bundle", help="build the autograder zip to upload to Gradescope"
    )
    bundle.add_argument("zip_path", type=Path, metavar="OUT.zip", help="where the zip is written")
    bundle.add_argument(
        "--hidden-visibility",
        choices=gradescope.VISIBILITIES,
        default="visible",
        help="when students see each hidden test (default visible); the upload checks are "
        "always visible",
    )
    bundle.add_argument(
        "--isolation",
        choices=gradescope.ISOLATIONS,
        default="bubblewrap",
        help="what grading on Gradescope requires (default bubblewrap: the image fails to "
        "build where it cannot run); process only where Gradescope cannot run bubblewrap",
    )
    return parser


def _positive(kind: Callable[[str], Number]) -> Callable[[str], Number]:
    def convert(text: str) -> Number:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"{text!r} must be greater than 0")
        return value

    convert.__name__ = kind.__name__
    return convert


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be above 0 and at most 1")
    return value
