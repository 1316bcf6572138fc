"""Run the mutation analysis: `python -m tooling.mutation --help`."""

import sys

from tooling.mutation.cli import main

sys.exit(main())
