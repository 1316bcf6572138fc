"""One grading job: a single pytest session that runs the hidden tests for a list of submissions.

    python -m grader.job INPUT.jsonl OUTPUT_DIR    grade; write OUTPUT_DIR/<key>.json per submission
                                                  (and OUTPUT_DIR/facts.json once the hidden
                                                  tests are collected: catalogue, isolation)
    python -m grader.job --list OUTPUT.json        write the catalogue of hidden tests, run nothing

The job runs only the grader's own code; student code runs in the sandbox workers it starts.
Each result file is written atomically as soon as its submission is done, so the parent can
report progress and keep every finished result even if this job dies later. A job never
outlives the grader that started it (see `stop_with_parent`).
"""

import contextlib
import ctypes
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import FrameType
from typing import NoReturn

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
from grader.sandbox.containment import adopt_orphans, describe
from grader.sandbox.forkserver import ForkServer
from grader.warm import AWAIT, CORE_VARIABLE, keep_to_core, order_of

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
PARENT_POLL_SECONDS = 0.5


def stop_with_parent() -> None:
    """Stop this job cleanly on SIGTERM or SIGINT, and get SIGTERM when its parent dies.

    Stopping raises KeyboardInterrupt, which pytest lets through, so the running submission's
    worker is killed on the way out and no half-graded result is written.
    """
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, _interrupt)
    parent = int(os.environ.get("GRADER_PARENT_PID", os.getppid()))
    if not _ask_kernel_for_death_signal():
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before the kernel was asked
        os.kill(os.getpid(), signal.SIGTERM)


def _interrupt(_number: int, _frame: FrameType | None) -> NoReturn:
    # One stop is enough: a second signal must not cut short the cleanup of the first.
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, signal.SIG_IGN)
    raise KeyboardInterrupt


def _ask_kernel_for_death_signal() -> bool:
    """Ask Linux to send SIGTERM when the parent dies; say whether it agreed."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        status: int = libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        return status == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    """Where the kernel cannot help: poll until the parent is gone, then stop."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os.kill(os.getpid(), signal.SIGTERM)


def chosen_core() -> int | None:
    """Return the processor the parent chose for this job and its workers, if it chose one.

    See grader.dispatch.cores_for_jobs.
    """
    core = os.environ.get(CORE_VARIABLE, "")
    return int(core) if core.isdigit() else None


def keep_to(core: int | None) -> None:
    """Keep this process on `core` from now on (None: anywhere).

    A processor the system no longer offers is not an error: the job then runs wherever the
    kernel puts it, only a little slower.
    """
    if core is not None:
        with contextlib.suppress(AttributeError, OSError):
            os.sched_setaffinity(0, {core})


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
        "-p",
        "no:cacheprovider",
        "-p",
        "no:logging",
        # Both collect garbage when the session ends (a whole heap, tens of milliseconds the
        # parent waits for), to report what no test here can leave: tests run directly.
        "-p",
        "no:unraisableexception",
        "-p",
        "no:threadexception",
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


def grade(input_path: str, output_dir: str) -> int:
    """Run the hidden tests for every submission listed in the input file."""
    data, entries = read_job_input(Path(input_path))

    notify = notifier()

    def on_finished(key: str, result: ResultFile) -> None:
        write_json(Path(output_dir) / f"{key}.json", result)
        notify()

    limits = Limits(**data["limits"])
    wanted = data["isolation"]
    core = chosen_core()
    adopt_orphans()
    # One runtime copy and one warm fork server per job: every worker is forked from it. It is
    # set up, and started on any processor, while the job collects its tests; the job and
    # each worker then keep to the chosen processor, where their round trips are cheapest.
    with ForkServer.opening(wanted, worker_core=core) as opening:

        def on_collected(catalogue: list[CatalogueEntry]) -> None:
            try:
                server = opening.ready()
            except (OSError, RuntimeError) as error:
                raise pytest.UsageError(f"the job could not start its workers: {error}") from None
            facts: FactsFile = {"catalogue": catalogue, "isolation": describe(server.isolation)}
            write_json(Path(output_dir) / FACTS, facts)
            notify()
            keep_to(core)

        entries_read = read_entries(entries)
        plugin = GradingPlugin(entries_read, limits, on_finished, opening.ready, on_collected)
        plugin.on_collecting = opening.start_if_set_up
        return pytest.main(pytest_arguments(), plugins=[plugin])


def list_tests(output_path: str) -> int:
    """Write the catalogue of hidden tests without running any."""
    plugin = GradingPlugin([], Limits(), on_finished=_nothing_to_grade)
    code = pytest.main(pytest_arguments(collect_only=True), plugins=[plugin])
    write_json(output_path, plugin.catalogue)
    return code


def _nothing_to_grade(_key: str, _result: ResultFile) -> None:
    """Listing grades nobody: no result ever comes."""


def main(argv: list[str]) -> int:
    """Dispatch on the command line; the exit status is pytest's."""
    stop_with_parent()
    if argv[1] == "--list":
        return list_tests(argv[2])
    if argv[1] == AWAIT:  # started ahead (grader.warm): wait, imported, for what to grade
        line = sys.stdin.readline()
        if not line:
            return 0  # the run did not need this job
        arguments, log_path, core = order_of(line)
        take_order(log_path, core)
        argv = [argv[0], *arguments]
    code = grade(argv[1], argv[2])
    # Failed hidden tests are results, not job failures.
    return 0 if code in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) else int(code)


def take_order(log_path: str, core: int | None) -> None:
    """Write to `log_path` from now on, and keep to `core`, as a job started for it would."""
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for stream in (1, 2):
        os.dup2(log, stream)
    os.close(log)
    keep_to_core(os.environ, core)


def leave(code: int) -> NoReturn:
    """End the job at once: every file is written and closed, every worker stopped.

    The interpreter's own tear-down (pytest's hundreds of items, every module) would take
    tens of milliseconds more, while the parent waits for this process to end.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    leave(main(sys.argv))
