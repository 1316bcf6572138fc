"""Run the grader's command line: `python -m grader`."""

import sys

from grader.cli import main

sys.exit(main())
