"""The hidden suite as a job calls it: each declared test with its catalogue entry.

The suite declares itself in plain Python (grader/hidden/cases.py), so a job reads it in a few
milliseconds and never imports pytest; pytest's own collection is checked against the same
declarations (grader/hidden/conftest.py).
"""

import sys

from grader.hidden.cases import declared_suite
from grader.job.runner import HiddenCall
from grader.jobfiles import catalogue_entry, write_json


def hidden_calls() -> list[HiddenCall]:
    """Return every hidden test, ready for the job to call, in the suite's order."""
    return [
        HiddenCall(
            catalogue_entry(
                test.name, test.function.__doc__, list(test.categories), test.words, test.part
            ),
            test.function,
            test.parameters,
            test.takes_submission,
        )
        for test in declared_suite()
    ]


def list_tests(output_path: str) -> int:
    """Write the catalogue of hidden tests to `output_path`; run none. Return the exit status."""
    try:
        tests = hidden_calls()
    except Exception as error:  # a suite that cannot be read: said in one line, graded by none
        print(f"grader: the hidden tests could not be read: {error}", file=sys.stderr)
        return 1
    write_json(output_path, [test.entry for test in tests])
    return 0
