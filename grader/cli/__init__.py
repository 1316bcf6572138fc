"""The instructor's command line: `python -m grader [grade … | selfcheck | gradescope-bundle …]`.

__init__.py  main: the command line parsed, its command run, a usage error said in one line
parser.py    the parser: each command and its options
grade.py     the `grade` command: settings checked, the class graded, the run summed up
progress.py  what the terminal shows during and after a run: the progress bar, the end table
"""

import sys
from collections.abc import Sequence

from grader.cli.grade import DEFAULT_OUT, gradebook_settings, run_grade
from grader.cli.parser import build_parser
from grader.intake import handins
from grader.integrations import gradescope
from grader.model import Limits, UsageError
from grader.paths import SAMPLE_CLASS

USAGE_EXIT = 2


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and run its command; return the process exit code."""
    try:
        args = build_parser().parse_args(argv)
        if args.command == "selfcheck":
            from grader.selfcheck import catalogue  # only what the command needs is imported

            return catalogue.main()
        if args.command == "gradescope-bundle":
            settings = gradescope.BundleSettings(args.hidden_visibility, args.isolation)
            written = gradescope.build_bundle(args.zip_path, settings)
            print(f"Gradescope autograder written to {written}")
            return 0
        if args.command is None:
            return run_grade([str(SAMPLE_CLASS)], DEFAULT_OUT, jobs=1)
        limits = Limits.scaled(
            args.timeout,
            memory_mb=args.memory,
            processes=args.processes,
            output_limit=args.output_limit * 1024,
        )
        with handins.unpacking() as zips:
            return run_grade(
                args.submissions,
                args.out,
                jobs=args.jobs,
                lms_system=args.lms,
                limits=limits,
                isolation=args.isolation,
                unconfined=args.allow_unconfined_files,
                gradebook=gradebook_settings(args),
                shard=args.shard,
                merge=args.merge,
                regrade=args.regrade,
                similarity=args.similarity,
                zips=zips,
            )
    except UsageError as error:
        print(f"grader: error: {error}", file=sys.stderr)
        return USAGE_EXIT
