"""Run one grading job: `python -m grader.job INPUT.jsonl OUTPUT_DIR` (see grader.job.main)."""

import sys

from grader.job.main import leave, main

leave(main(sys.argv))
