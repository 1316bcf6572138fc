"""Run the grader's command line: `python -m grader`."""

import sys

from grader.batch.warm import WarmJobs, jobs_asked

# Before the rest of the grader is imported: a `grade` run's jobs start now, and their start-up
# overlaps this process's own (grader/batch/warm.py).
asked = jobs_asked(sys.argv)
warm = WarmJobs.start(asked) if asked else None

from grader.cli import main  # noqa: E402 - imported after the jobs are on their way

sys.exit(main(warm=warm))
