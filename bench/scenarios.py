"""Benchmark of a generated scenario's cost: the batch protocol, the one before it, the reference.

    .venv/bin/python -m bench.scenarios [--runs 5] [--families]

Runs every scenario of the corpus (grader/hidden/data/corpus.json) for the reference
solution three ways, side by side in one run, and prints the median time per scenario of each:
- the reference's own invoke_tool, in this process, with plain handlers (the floor);
- the batch protocol the hidden suite uses (SubmissionSession.batch: the guard answers tool
  calls from the recipes, one reply per hundred scenarios), judged by every rule, for the first
  submission of a job and for a later one (`in a class`: the job has encoded every batch's
  request and judged the observations the first one showed);
- the previous protocol (SubmissionSession.call: one request and one round trip per tool
  call for each scenario), for the same scenarios.
The overhead of a protocol is its time per scenario less the reference's own, and its ratio is
that overhead over the reference's own time. The wall time of the two protocols counts both
processes, since the job and its worker take turns.

With --families it says instead where a later submission's processor time goes, family by
family: the worker's (what the submission is charged) and the job's, each the median of the runs.
"""

import argparse
import statistics
import time
import warnings
from pathlib import Path
from typing import Any

from bench.make_class import CATALOGUE
from grader.hidden.judge.corpus import families
from grader.hidden.judge.judging import tallies
from grader.job.grading import freeze_what_lasts
from grader.model import CodeUnit, Limits
from grader.sandbox.handlers import Scenario
from grader.sandbox.inside.recipes import every_tool
from grader.sandbox.server import ForkServer
from grader.sandbox.session import SubmissionSession
from tooling.scenarios.inprocess import run

REFERENCE = CATALOGUE / "correct" / "reference.py"
LIMITS = Limits(timeout=600, test_timeout=60)  # the benchmark measures; it does not limit
WAYS = ("reference", "batch", "in a class", "previous")


def session(server: ForkServer, source: str, serial: int) -> SubmissionSession:
    """Return a started session for the reference."""
    started = SubmissionSession(
        [CodeUnit("reference", "reference.py", source)], LIMITS, server, serial
    )
    started.start()
    return started


def in_process(source: str) -> float:
    """Return the seconds the reference's own invoke_tool takes for every scenario."""
    namespace: dict[str, Any] = {}
    exec(compile(source, str(REFERENCE), "exec"), namespace)  # our own reference
    invoke_tool = namespace["invoke_tool"]
    scenarios = [entry.scenario for entries in families().values() for entry in entries]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # coroutines the reference refused
        start = time.perf_counter()
        for scenario in scenarios:
            run(invoke_tool, scenario)
        return time.perf_counter() - start


def batched(server: ForkServer, source: str, serial: int, shared: dict[str, object]) -> float:
    """Return the seconds the hidden suite's batches take for every family, judged.

    `shared` is what the job kept from the submissions it graded before (SubmissionSession).
    """
    start = time.perf_counter()
    by_family(server, source, serial, shared)
    return time.perf_counter() - start


Spent = dict[str, tuple[float, float]]  # family -> (worker, job) processor seconds


def by_family(server: ForkServer, source: str, serial: int, shared: dict[str, object]) -> Spent:
    """Judge every family as `batched` does; return each one's worker and job processor time."""
    graded = session(server, source, serial)
    graded.shared = shared
    spent: Spent = {}
    try:
        for family in families():
            worker, job = graded.spent, time.process_time()
            tallies(graded, family)
            spent[family] = (graded.spent - worker, time.process_time() - job)
        return spent
    finally:
        graded.stop()


def print_families(server: ForkServer, source: str, runs: int) -> None:
    """Print each family's median worker and job milliseconds for a later submission of a job."""
    shared: dict[str, object] = {}
    by_family(server, source, 0, shared)  # the job's first submission: its requests encoded
    spent = [by_family(server, source, number + 1, shared) for number in range(runs)]
    print(f"processor ms of a later submission of a job, median of {runs} runs")
    totals = [0.0, 0.0]
    for family in families():
        medians = [statistics.median(run[family][side] for run in spent) for side in (0, 1)]
        totals = [total + median for total, median in zip(totals, medians, strict=True)]
        print(f"  {family:>12}: worker {medians[0] * 1e3:6.1f}, job {medians[1] * 1e3:6.1f}")
    print(f"  {'all':>12}: worker {totals[0] * 1e3:6.1f}, job {totals[1] * 1e3:6.1f}")


def one_by_one(server: ForkServer, source: str, serial: int) -> float:
    """Return the seconds the previous protocol takes: one request per scenario it can run.

    A tool that calls invoke_tool itself runs only in a batch: those scenarios are left out.
    """
    graded = session(server, source, serial)
    try:
        start = time.perf_counter()
        for scenario in alone():
            graded.call(scenario)
        return time.perf_counter() - start
    finally:
        graded.stop()


def alone() -> list[Scenario]:
    """Return the scenarios the previous protocol can run: all but those that nest."""
    scenarios = [entry.scenario for entries in families().values() for entry in entries]
    return [s for s in scenarios if every_tool(s["tools"]) is s["tools"]]


def main(argv: list[str] | None = None) -> int:
    """Measure the three ways `--runs` times each, in turn; print the medians and ratios."""
    parser = argparse.ArgumentParser(prog="python -m bench.scenarios")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--families", action="store_true", help="where the time goes, by family")
    options = parser.parse_args(argv)
    source = Path(REFERENCE).read_text(encoding="utf-8")
    families()
    freeze_what_lasts()  # as a job does once its hidden tests are read
    if options.families:
        with ForkServer.open("auto") as server:
            print_families(server, source, options.runs)
        return 0
    count = sum(len(entries) for entries in families().values())
    times: dict[str, list[float]] = {name: [] for name in WAYS}
    with ForkServer.open("auto") as server:
        for number in range(options.runs):
            shared: dict[str, object] = {}  # a new job's
            times["reference"].append(in_process(source))
            times["batch"].append(batched(server, source, 3 * number, shared))
            times["in a class"].append(batched(server, source, 3 * number + 1, shared))
            times["previous"].append(one_by_one(server, source, 3 * number + 2))
    counts = {name: len(alone()) if name == "previous" else count for name in WAYS}
    per = {name: statistics.median(times[name]) / counts[name] * 1e6 for name in WAYS}
    print(f"{count} generated scenarios per submission, median of {options.runs} runs")
    print(f"  (the previous protocol runs the {counts['previous']} of them that do not nest)")
    for name in WAYS:
        line = f"  {name:>10}: {per[name]:7.1f} µs per scenario"
        if name != "reference":
            overhead = per[name] - per["reference"]
            ratio = overhead / per["reference"]
            line += f", overhead {overhead:6.1f} µs = {ratio:5.1f}× the reference's own call"
        print(line)
    print(f"  batch / previous: {per['batch'] / per['previous']:.2f}")
    print(f"  in a class / previous: {per['in a class'] / per['previous']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
