"""The job's pytest session: the hidden tests, collected once, run for each of its submissions.

grader/job.py opens the job's fork server first and imports this module while the server is set
up: pytest's import is most of a job's start.
"""

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from grader.dispatch import FACTS, notifier
from grader.jobfiles import (
    CatalogueEntry,
    FactsFile,
    GradingEntry,
    JobEntry,
    ResultFile,
    read_job_input,
)
from grader.model import CodeUnit, Limits
from grader.paths import HIDDEN_CONFIG, HIDDEN_TESTS
from grader.plugin import GradingPlugin
from grader.sandbox.containment import describe
from grader.sandbox.forkserver import Opening
from grader.warm import chosen_core, keep_to

# pytest's own plugins that a job has no use for, not even imported: the plugin runs each hidden
# test directly (GradingPlugin.run_directly), so nothing of pytest's per-test protocol (warnings,
# fixtures of its own, skipping, debugging, unittest classes, outputs such as junit or a cache)
# ever takes part. The two exception plugins would also collect garbage when the session ends (a
# whole heap, tens of milliseconds the parent waits for) to report what no test here can leave.
UNUSED_PLUGINS = (
    "cacheprovider",
    "logging",
    "unraisableexception",
    "threadexception",
    "debugging",
    "doctest",
    "faulthandler",
    "junitxml",
    "legacypath",
    "monkeypatch",
    "pastebin",
    "recwarn",
    "setuponly",
    "setupplan",
    "skipping",
    "stepwise",
    "subtests",
    "tmpdir",
    "unittest",
    "warnings",
)


def pytest_arguments(collect_only: bool = False) -> list[str]:
    """Return the arguments of the job's pytest session: quiet, with the suite's own config file."""
    arguments = [
        str(HIDDEN_TESTS),
        "-q",
        "-s",
        # Failures are results, reported by the plugin as data; pytest's own tracebacks and
        # summary would cost seconds per class to render, for a log nobody reads.
        "--tb=no",
        "-rN",
        *(word for plugin in UNUSED_PLUGINS for word in ("-p", f"no:{plugin}")),
        "-c",
        str(HIDDEN_CONFIG),
        "--rootdir",
        str(HIDDEN_TESTS),
        "--strict-markers",
    ]
    return [*arguments, "--collect-only"] if collect_only else arguments


def write_json(path: str | Path, data: ResultFile | FactsFile | list[CatalogueEntry]) -> None:
    """Write JSON to `path` atomically: readers see the whole file or no file.

    The partial file is this process's own: every job of a run writes facts.json, often at the
    same moment, and with one shared partial name one job's rename took the other's file away
    (FileNotFoundError in a pytest hook: the job ended with exit code 3 before its first student).
    """
    path = Path(path)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    partial.write_text(json.dumps(data), encoding="utf-8")
    os.replace(partial, path)


def read_entries(entries: Iterable[JobEntry]) -> Iterator[GradingEntry]:
    """Turn the job's input entries into the plugin's, one at a time."""
    for item in entries:
        yield {
            "key": str(item["key"]),
            "units": tuple(CodeUnit(**unit) for unit in item.get("units", ())),
            "error": item.get("error"),
        }


def grade(input_path: str, output_dir: str, opening: Opening) -> int:
    """Run the hidden tests for every submission listed in the input file; return the exit status.

    `opening` is the job's fork server being set up (grader.job): it is asked for the run's
    isolation and processor, started as soon as its set-up is done, and ready, with its first
    worker on the way, by the time the tests are collected.
    """
    data, entries = read_job_input(Path(input_path))

    notify = notifier()

    def on_finished(key: str, result: ResultFile) -> None:
        write_json(Path(output_dir) / f"{key}.json", result)
        notify()

    core = chosen_core()
    opening.require(data["isolation"])
    # The job and each worker keep to the chosen processor, where their round trips are
    # cheapest; the server itself starts on any processor while the job collects its tests.
    opening.keep_workers_to(core)
    opening.start_if_set_up()

    def on_collected(catalogue: list[CatalogueEntry]) -> None:
        try:
            server = opening.ready()
        except (OSError, RuntimeError) as error:
            raise pytest.UsageError(f"the job could not start its workers: {error}") from None
        facts: FactsFile = {"catalogue": catalogue, "isolation": describe(server.isolation)}
        write_json(Path(output_dir) / FACTS, facts)
        notify()
        keep_to(core)

    plugin = GradingPlugin(
        read_entries(entries), Limits(**data["limits"]), on_finished, opening.ready, on_collected
    )
    plugin.on_collecting = opening.start_if_set_up
    code = pytest.main(pytest_arguments(), plugins=[plugin])
    # Failed hidden tests are results, not job failures.
    return 0 if code in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) else int(code)


def list_tests(output_path: str) -> int:
    """Write the catalogue of hidden tests without running any."""
    plugin = GradingPlugin([], Limits(), on_finished=_nothing_to_grade)
    code = pytest.main(pytest_arguments(collect_only=True), plugins=[plugin])
    write_json(output_path, plugin.catalogue)
    return code


def _nothing_to_grade(_key: str, _result: ResultFile) -> None:
    """Listing grades nobody: no result ever comes."""
