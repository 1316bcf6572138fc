"""The instructor's command line: `python -m grader [grade … | selfcheck | gradescope-bundle …]`."""

import argparse
import sys
from pathlib import Path

from grader import class_report, gradescope, late, lms, roster, selfcheck
from grader.discover import UsageError
from grader.feedback import format_points
from grader.gradebook import ClassBook, GradebookSettings
from grader.model import CATEGORIES
from grader.pipeline import Interrupted, find_submissions, grade_submissions, stop_on_signals
from grader.run import RunSettings
from grader.sandbox import containment

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_CLASS = PROJECT_ROOT / "fixtures" / "sample-class"
DEFAULT_OUT = Path("grades")
USAGE_EXIT = 2


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line, like the grader's own."""

    def error(self, message):
        raise UsageError(message)


def build_parser():
    """Return the parser for `python -m grader`."""
    parser = _Parser(prog="grader", description="Grade invoke_tool submissions.")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)
    grade = commands.add_parser("grade", help="grade submissions and write reports")
    grade.add_argument(
        "submissions",
        nargs="+",
        metavar="SUBMISSION",
        help="a lessons folder, a notebook, a .py file, an nbgrader submitted/ tree, "
        "or a folder of these",
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
        default=10.0,
        metavar="S",
        help="seconds of its own processor time allowed per submission (default 10)",
    )
    grade.add_argument(
        "--memory",
        type=_positive(int),
        default=512,
        metavar="MIB",
        help="memory allowed to a submission's process, in MiB (default 512)",
    )
    grade.add_argument(
        "--processes",
        type=_positive(int),
        default=64,
        metavar="N",
        help="processes and threads a submission may run at once (default 64)",
    )
    grade.add_argument(
        "--output-limit",
        type=_positive(int),
        default=64,
        metavar="KIB",
        help="printed output kept per test, in KiB (default 64)",
    )
    grade.add_argument(
        "--lms",
        choices=lms.SYSTEMS,
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
        "--comments",
        action="store_true",
        help="add a one-line comment per student to grades.csv and to the Moodle file",
    )
    grade.add_argument(
        "--isolation",
        choices=("auto", "bubblewrap", "process"),
        default="auto",
        help="auto: bubblewrap where it works, else a plain process (the summary says which); "
        "bubblewrap: require it, failing with one line where it cannot run; process: force "
        "the weaker fallback",
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


def _positive(kind):
    def convert(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"{text!r} must be greater than 0")
        return value

    convert.__name__ = kind.__name__
    return convert


def main(argv=None):
    """Run the command line; return the process exit code."""
    try:
        args = build_parser().parse_args(argv)
        if args.command == "selfcheck":
            return selfcheck.main()
        if args.command == "gradescope-bundle":
            settings = gradescope.BundleSettings(args.hidden_visibility, args.isolation)
            written = gradescope.build_bundle(args.zip_path, settings)
            print(f"Gradescope autograder written to {written}")
            return 0
        if args.command is None:
            return _grade([str(SAMPLE_CLASS)], DEFAULT_OUT, jobs=1, timeout=10.0)
        limits = {
            "memory_mb": args.memory,
            "processes": args.processes,
            "output_limit": args.output_limit * 1024,
        }
        return _grade(
            args.submissions,
            args.out,
            jobs=args.jobs,
            timeout=args.timeout,
            lms_system=args.lms,
            limits=limits,
            isolation=args.isolation,
            gradebook=gradebook_settings(args),
        )
    except UsageError as error:
        print(f"grader: error: {error}", file=sys.stderr)
        return USAGE_EXIT


def gradebook_settings(args):
    """Return the roster, late policy and comments asked for; raise UsageError if unusable."""
    due = late.parse_due(args.due) if args.due else None
    return GradebookSettings(
        roster=roster.read_roster(args.roster) if args.roster else None,
        policy=late.parse_policy(args.late_policy, due),
        comments=args.comments,
    )


def _grade(
    paths, out_dir, *, jobs, timeout, lms_system=None, limits=None, isolation="auto", gradebook=None
):
    submissions = find_submissions(paths, out_dir)
    book = ClassBook(gradebook or GradebookSettings())
    try:
        in_force = containment.isolation_here(isolation)
    except RuntimeError as error:  # --isolation bubblewrap where it cannot run
        raise UsageError(str(error)) from None
    progress = ProgressBar(sys.stderr)
    settings = RunSettings(jobs=jobs, timeout=timeout, isolation=isolation, **(limits or {}))
    try:
        with stop_on_signals():
            grades = grade_submissions(submissions, out_dir, settings, progress, book)
    except Interrupted as stop:
        progress.finish()
        for line in progress.notes:
            print(line, file=sys.stderr)
        print(interrupted_message(progress, out_dir), file=sys.stderr)
        return 128 + stop.signal_number
    progress.finish()
    class_report.write_class_report(book.summaries(), out_dir, book.catalogue)
    if lms_system:
        comments = book.settings.comments
        lms.write_lms_grades(book.summaries(), out_dir, lms_system, comments=comments)
    print(summary_table(grades))
    notes = progress.notes + book.notes()
    if notes:
        print("\n" + "\n".join(notes))
    print(f"\nIsolation: {containment.describe(in_force)}")
    if progress.resumed:
        print(resumed_message(progress))
    print(f"Reports written to {out_dir}/ (grades.csv and one folder per student).")
    return 0


def interrupted_message(progress, out_dir):
    """Say in one line what an interrupted run kept and how to finish it."""
    return (
        f"Interrupted: {progress.done} of {progress.total} students graded, their reports "
        f"kept in {out_dir}/. Run the same command again to resume and grade the rest."
    )


def resumed_message(progress):
    """Say in one line how many results an earlier run had already produced."""
    graded = progress.done - progress.resumed
    return (
        f"Resumed: reused {progress.resumed} results from an earlier run into this folder "
        f"and graded {graded}."
    )


class ProgressBar:
    """A one-line progress bar on a terminal, one line per student elsewhere."""

    WIDTH = 30

    def __init__(self, stream):
        self.stream = stream
        self.total = 0
        self.done = 0
        self.resumed = 0
        self.notes = []  # lines for the instructor, printed under the summary table

    def start(self, total):
        """Set how many students are to be graded and draw the empty bar."""
        self.total = total
        self._draw("")

    def advance(self, grade):
        """Count one more graded student."""
        self.done += 1
        self._draw(grade.run.submission.student)

    def resume(self, grade):
        """Count one more student whose result an earlier run already produced."""
        self.done += 1
        self.resumed += 1
        self._draw(f"{grade.run.submission.student} (resumed)")

    def note(self, line):
        """Keep one line for the instructor, to print with the summary."""
        self.notes.append(line)

    def finish(self):
        """End the bar's line."""
        if self.stream.isatty():
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self, student):
        filled = self.WIDTH * self.done // max(self.total, 1)
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        line = f"grading [{bar}] {self.done}/{self.total} {student}"
        if self.stream.isatty():
            self.stream.write("\r" + line.ljust(self.WIDTH + 40))
        elif student:
            self.stream.write(line + "\n")
        self.stream.flush()


def summary_table(grades):
    """Return the end-of-run table: one row per student with score, status and category points."""
    header = ["student", "score", "status", *CATEGORIES]
    rows = [
        [
            _shown(g.run.submission.student),
            f"{format_points(g.score)}/{format_points(g.max_score)}",
            g.run.status,
            *(format_points(c.points) for c in g.categories),
        ]
        for g in grades
    ]
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _shown(student):
    """Return a student id as it can be printed in one cell: as a literal if it holds a tab."""
    return student if student.isprintable() else repr(student)
