"""The `grade` command: submissions found, graded, reported, and the run summed up on the terminal.

What grading does is grader/pipeline.py's; this module turns the options into its settings,
refuses what cannot be graded before anything is, and prints the end table and notes.
"""

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict, Unpack

from course.manifest import load_course
from grader.batch.run import RunSettings
from grader.batch.shards import Shard, gather
from grader.cli.progress import ProgressBar, interrupted_message, resumed_message, summary_table
from grader.gradebook import extensions, late, lms, roster, times
from grader.gradebook.book import ClassBook, GradebookSettings
from grader.intake import handins
from grader.intake.discover import Found
from grader.model import Limits, UsageError
from grader.pipeline import Interrupted, find_submissions, grade_submissions, stop_on_signals
from grader.reports import class_report
from grader.reports.similarity import similarity_line, write_similarity_csv
from grader.sandbox import containment, wording
from grader.similarity.pairs import Similarity

DEFAULT_OUT = Path("grades")
DEFAULTS = Limits()


class _GradeOptions(TypedDict, total=False):
    """What `grade` takes beyond the submissions, the output folder, jobs, limits and LMS."""

    isolation: str
    unconfined: bool
    gradebook: GradebookSettings
    shard: Shard | None
    merge: list[Path]
    regrade: list[str]
    similarity: float | None
    zips: handins.Unpacking


def gradebook_settings(args: argparse.Namespace) -> GradebookSettings:
    """Return the roster, late policy and comments asked for; raise UsageError if unusable."""
    due = late.parse_due(args.due) if args.due else None
    if args.submitted_at and due is None:
        raise UsageError("--submitted-at needs --due, the date it counts lateness from")
    extended = extensions.combine(
        extensions.roster_extensions(args.roster) if args.roster else {},
        extensions.read_extensions(args.extensions) if args.extensions else {},
    )
    extensions.check_extensions(extended, due)
    return GradebookSettings(
        roster=roster.read_roster(args.roster) if args.roster else None,
        policy=late.parse_policy(args.late_policy, due),
        comments=args.comments,
        submitted_at=times.read_submitted_at(args.submitted_at) if args.submitted_at else {},
        extensions=extended,
    )


def run_grade(
    paths: Sequence[str],
    out_dir: Path,
    *,
    jobs: int,
    lms_system: str | None = None,
    limits: Limits = DEFAULTS,
    **more: Unpack[_GradeOptions],
) -> int:
    """Grade `paths` into `out_dir`; `more` holds isolation, gradebook, shard and merge."""
    isolation, gradebook = more.get("isolation", "auto"), more.get("gradebook")
    if more.get("shard") and more.get("merge"):
        raise UsageError("--shard and --merge go in separate runs: grade the shards, then merge")
    if more.get("shard") and more.get("similarity") is not None:
        raise UsageError("--similarity compares the whole class: give it with --merge, not --shard")
    zip_notes = more["zips"].notes if "zips" in more else []
    submissions = find_submissions(paths, out_dir, more.get("zips"))
    if more.get("merge"):
        gather(more["merge"], out_dir)
    book = ClassBook(gradebook or GradebookSettings())
    book.require_trusted_times(submissions)
    book.require_known_extensions(submissions)
    if isolation == "bubblewrap":  # required: say so before anything is graded
        try:
            containment.isolation_here(isolation)
        except RuntimeError as error:
            raise UsageError(str(error)) from None
    elif not more.get("unconfined") and not containment.files_confined_here(isolation):
        raise UsageError(containment.UNCONFINED)
    progress = ProgressBar(sys.stderr)
    settings = RunSettings(jobs=jobs, limits=limits, isolation=isolation)
    try:
        with stop_on_signals():
            grades = grade_submissions(
                submissions,
                out_dir,
                settings,
                progress,
                book,
                more.get("shard"),
                regrade=more.get("regrade", ()),
            )
    except Interrupted as stop:
        progress.finish()
        for line in zip_notes + progress.notes:
            print(line, file=sys.stderr)
        print(interrupted_message(progress, out_dir), file=sys.stderr)
        return 128 + stop.signal_number
    progress.finish()
    similar = _similar(submissions, out_dir, more.get("similarity"))
    class_report.write_class_report(book.summaries(), out_dir, book.catalogue, similar)
    if lms_system:
        comments = book.settings.comments
        lms.write_lms_grades(book.summaries(), out_dir, lms_system, comments=comments)
    for line in summary_table(grades):
        print(line)
    notes = zip_notes + progress.notes + book.notes()
    if notes:
        print("\n" + "\n".join(notes))
    in_force = progress.isolation or wording.describe(containment.isolation_here(isolation))
    print(f"\nIsolation: {in_force}")
    if progress.resumed:
        print(resumed_message(progress))
    if similar is not None:
        print(similarity_line(similar))
    print(f"Reports written to {out_dir}/ (grades.csv and one folder per student).")
    return 0


def _similar(found: Sequence[Found], out_dir: Path, threshold: float | None) -> Similarity | None:
    """Compare the class's code if asked (after grading: no grade reads it); write its CSV."""
    if threshold is None:
        return None
    from grader.similarity.compare import similarity_of  # numpy and copydetect: only if asked

    similar = similarity_of(found, load_course(), threshold)
    write_similarity_csv(similar, out_dir)
    return similar
