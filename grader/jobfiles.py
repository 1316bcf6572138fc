"""The files a grading job reads and writes, declared once: its input, its results, facts.json.

    grader/batch/dispatch.py   writes the jobs' inputs (deal_job_inputs) and starts the jobs
    grader/job/grading.py     reads it, writes facts.json (FactsFile) once the hidden tests are
                         collected, then one ResultFile per submission as soon as it is graded
    grader/job/suite.py      builds the catalogue (CatalogueEntry) from the suite's declarations;
                         grader/job/grading.py each result's outcomes
    grader/batch/run.py        reads facts.json and the result files back into grader.model's types

A job's input is JSON Lines: its JobSettings on the first line, then one JobEntry per line, so
neither the writer nor the job ever holds a class's code at once (write_job_input,
read_job_input). Every other file is one JSON document; `python -m grader.job --list OUT`
writes a list of CatalogueEntry. The messages between a job and its sandbox workers are
declared apart, in grader/sandbox/inside/protocol.py, which the worker reads too.
"""

import contextlib
import json
import os
from array import array
from collections.abc import Container, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TextIO, TypedDict

from course.contract import CATEGORIES, category_named, parts_of
from grader.model import CodeUnit, Limits
from grader.sandbox.inside.protocol import CodeUnitMessage

FACTS = "facts.json"  # what a job writes beside its results once its hidden tests are read


class LimitsData(TypedDict):
    """grader.model.Limits as a job's input carries them: `Limits(**data)` rebuilds them."""

    timeout: float
    test_timeout: float
    output_limit: int
    memory_mb: int
    processes: int
    held_mb: int


def limits_data(limits: Limits) -> LimitsData:
    """Return `limits` as a job's input carries them."""
    return {
        "timeout": limits.timeout,
        "test_timeout": limits.test_timeout,
        "output_limit": limits.output_limit,
        "memory_mb": limits.memory_mb,
        "processes": limits.processes,
        "held_mb": limits.held_mb,
    }


class JobSettings(TypedDict):
    """The part of a job's input that every job of a run shares."""

    limits: LimitsData
    isolation: str  # "auto", "bubblewrap" or "process" (grader.batch.run.RunSettings)


class JobEntry(TypedDict):
    """One submission in a job's input, by its index in the run."""

    key: int  # the submission's index in the run: its result file is <key>.json
    units: list[CodeUnitMessage]
    error: str | None  # why nothing of it can run (grader.model.Submission.error)


def write_job_input(path: Path, settings: JobSettings, entries: Iterable[JobEntry]) -> None:
    """Write a job's input: `settings` on the first line, then each entry on a line of its own."""
    deal_job_inputs([path], settings, entries)


def deal_job_inputs(
    paths: Sequence[Path], settings: JobSettings, entries: Iterable[JobEntry]
) -> list["array[int]"]:
    """Deal `entries` in turn into one input per path, as they come; return each one's keys.

    The keys are kept as arrays of machine integers, 4 bytes a student rather than an object.
    """
    keys = [array("I") for _ in paths]
    with contextlib.ExitStack() as stack:
        streams = [stack.enter_context(path.open("w", encoding="utf-8")) for path in paths]
        for stream in streams:
            stream.write(json.dumps(settings) + "\n")
        for number, entry in enumerate(entries):
            streams[number % len(streams)].write(json.dumps(entry) + "\n")
            keys[number % len(streams)].append(entry["key"])
    return keys


def read_job_input(path: Path) -> tuple[JobSettings, Iterator[JobEntry]]:
    """Return a job input's settings, and its entries as they are read, one line at a time."""
    stream = path.open(encoding="utf-8")
    try:
        settings: JobSettings = json.loads(stream.readline())
    except BaseException:
        stream.close()
        raise
    return settings, _entries(stream)


def _entries(stream: TextIO) -> Iterator[JobEntry]:
    with stream:
        for line in stream:
            if line.strip():
                entry: JobEntry = json.loads(line)
                yield entry


def write_json(path: str | Path, data: "ResultFile | FactsFile | list[CatalogueEntry]") -> None:
    """Write JSON to `path` atomically: readers see the whole file or no file.

    The partial file is this process's own: every job of a run writes facts.json, often at the
    same moment, and with one shared partial name one job's rename took the other's file away
    (FileNotFoundError: the job ended with exit code 3 before its first student).
    """
    path = Path(path)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    partial.write_text(json.dumps(data), encoding="utf-8")
    os.replace(partial, path)


def copy_job_input(source: Path, target: Path, keys: Container[int]) -> None:
    """Write to `target` the input `source` with only the entries whose key is in `keys`."""
    settings, entries = read_job_input(source)
    write_job_input(target, settings, (entry for entry in entries if entry["key"] in keys))


class GradingEntry(TypedDict):
    """One submission as the job's runner grades it (a JobEntry, read)."""

    key: str
    units: tuple[CodeUnit, ...]
    error: str | None


class CatalogueEntry(TypedDict):
    """One hidden test as the job read it, known without running anything."""

    test_id: str  # "<category>/<test name>[<case id>]"
    category: str  # UNCATEGORISED unless the test has exactly one category
    categories: list[str]  # every category the test has
    description: str  # the first line of its docstring, in a student's words
    case: str  # which case of a parametrized test, in a student's words
    part: str  # the rule or code of its category it judges (course.contract.parts_of)


UNCATEGORISED = "uncategorised"  # a test without exactly one category: it counts for none


def catalogue_entry(
    name: str, doc: str | None, categories: list[str], case: str = "", part: str = ""
) -> CatalogueEntry:
    """Return the catalogue entry of the hidden test `name` (with its case id, if any).

    `doc` is the test function's docstring: its first line says what the test checks. Without
    a `part`, a test of a category with one part judges that one.
    """
    category = categories[0] if len(categories) == 1 else UNCATEGORISED
    lines = (doc or "").strip().splitlines()
    return {
        "test_id": f"{category}/{name}",
        "category": category,
        "categories": categories,
        "description": lines[0] if lines else name,
        "case": case,
        "part": part or only_part(category),
    }


def only_part(category: str) -> str:
    """Return the one part of `category` (course.contract.parts_of), or "" when it has more."""
    if category not in CATEGORIES:
        return ""
    parts = parts_of(category_named(category))
    return parts[0] if len(parts) == 1 else ""


class OutcomeData(CatalogueEntry):
    """How one hidden test ended for one submission."""

    status: str  # one of grader.model.TEST_STATUSES
    output: str  # what the student's code printed during the test, capped
    example: str  # a failed generated scenario, in a student's words ("" for none)
    taught: str  # the id of a hidden test whose lesson section teaches it ("" for none)
    decided_by: str  # for a test that stepped aside, the category it stepped aside for


class DetailedOutcome(OutcomeData):
    """The outcome of a test that ran, with how it failed (for debugging: nothing reads it)."""

    detail: str  # what the test raised, cut: it may hold hidden inputs, so students never see it


class ResultFile(TypedDict):
    """A job's result file for one submission, <key>.json."""

    status: str  # one of grader.model.RUN_STATUSES
    reason: str  # in a student's words, when the run did not complete
    outcomes: list[OutcomeData]
    seconds: float | None  # charged to the submission's code, when any of it ran


class FactsFile(TypedDict):
    """facts.json: what a job knows before its first result (grader.model.JobFacts)."""

    catalogue: list[CatalogueEntry]
    isolation: str  # one line, as grader.sandbox.wording.describe says it
