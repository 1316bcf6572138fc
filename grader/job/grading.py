"""A job's grading: its tests and fork server made ready, then each submission's result written.

grader/job/main.py is the process around it (signals); the run loop itself is
grader/job/runner.py.
"""

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from grader.job.runner import Runner
from grader.job.suite import hidden_calls
from grader.jobfiles import FACTS, GradingEntry, JobEntry, ResultFile, read_job_input, write_json
from grader.jobstart import chosen_core, notifier
from grader.model import CodeUnit, Limits
from grader.sandbox.server import ForkServer
from grader.sandbox.wording import describe

CANNOT_START = 3  # no hidden tests or no workers: the job grades nobody


def grade(input_path: str, output_dir: str) -> int:
    """Run the hidden tests for each submission in the input file; return the exit status."""
    data, entries = read_job_input(Path(input_path))
    notify = notifier()
    core = chosen_core()
    try:
        tests = hidden_calls()
    except Exception as error:  # the instructor's suite, not a student's: said in one line
        print(f"grader: the hidden tests could not be read: {error}", file=sys.stderr)
        return CANNOT_START
    with contextlib.ExitStack() as stack:
        try:  # the job and each worker keep to the chosen processor: round trips are cheapest
            server = stack.enter_context(ForkServer.open(data["isolation"], core))
        except (OSError, RuntimeError) as error:
            print(f"grader: the job could not start: {error}", file=sys.stderr)
            return CANNOT_START
        catalogue = [test.entry for test in tests]
        write_json(
            Path(output_dir) / FACTS,
            {"catalogue": catalogue, "isolation": describe(server.isolation)},
        )
        notify()
        keep_to(core)

        def on_finished(key: str, result: ResultFile) -> None:
            write_json(Path(output_dir) / f"{key}.json", result)
            notify()

        Runner(tests, Limits(**data["limits"]), server, on_finished).run_all(read_entries(entries))
    return 0


def read_entries(entries: Iterable[JobEntry]) -> Iterator[GradingEntry]:
    """Turn the job's input entries into the runner's, one at a time."""
    for item in entries:
        yield {
            "key": str(item["key"]),
            "units": tuple(CodeUnit(**unit) for unit in item.get("units", ())),
            "error": item.get("error"),
        }


def keep_to(core: int | None) -> None:
    """Keep this process on `core` from now on (None: anywhere).

    A processor the system no longer offers is not an error: the job then runs wherever the
    kernel puts it, only a little slower.
    """
    if core is not None:
        with contextlib.suppress(AttributeError, OSError):
            os.sched_setaffinity(0, {core})
