"""The files a grading job reads and writes, declared once: its input, its results, facts.json.

    grader/dispatch.py   writes each job's input (JobInput) and starts the job
    grader/job.py        reads it, writes facts.json (FactsFile) once the hidden tests are
                         collected, then one ResultFile per submission as soon as it is graded
    grader/plugin.py     builds the catalogue (CatalogueEntry) and each result's outcomes
    grader/run.py        reads facts.json and the result files back into grader.model's types

Each file is one JSON document; `python -m grader.job --list OUT` writes a list of
CatalogueEntry. The messages between a job and its sandbox workers are declared apart, in
grader/sandbox/inside/protocol.py, which the worker reads too.
"""

from typing import TypedDict

from grader.model import CodeUnit, Limits
from grader.sandbox.inside.protocol import CodeUnitMessage


class LimitsData(TypedDict):
    """grader.model.Limits as a job's input carries them: `Limits(**data)` rebuilds them."""

    timeout: float
    test_timeout: float
    output_limit: int
    memory_mb: int
    processes: int


def limits_data(limits: Limits) -> LimitsData:
    """Return `limits` as a job's input carries them."""
    return {
        "timeout": limits.timeout,
        "test_timeout": limits.test_timeout,
        "output_limit": limits.output_limit,
        "memory_mb": limits.memory_mb,
        "processes": limits.processes,
    }


class JobSettings(TypedDict):
    """The part of a job's input that every job of a run shares."""

    limits: LimitsData
    isolation: str  # "auto", "bubblewrap" or "process" (grader.run.RunSettings)


class JobEntry(TypedDict):
    """One submission in a job's input, by its index in the run."""

    key: int  # the submission's index in the run: its result file is <key>.json
    units: list[CodeUnitMessage]
    error: str | None  # why nothing of it can run (grader.model.Submission.error)


class JobInput(JobSettings):
    """A job's input file: the run's settings and the submissions dealt to this job."""

    submissions: list[JobEntry]


class GradingEntry(TypedDict):
    """One submission as the job's plugin grades it (a JobEntry, read)."""

    key: str
    units: tuple[CodeUnit, ...]
    error: str | None


class CatalogueEntry(TypedDict):
    """One hidden test as the job collected it, known without running anything."""

    test_id: str  # "<category>/<test name>[<case id>]"
    category: str  # "uncategorised" unless the test has exactly one category marker
    categories: list[str]  # every category marker the test has
    description: str  # the first line of its docstring, in a student's words
    case: str  # which case of a parametrized test, in a student's words


class OutcomeData(CatalogueEntry):
    """How one hidden test ended for one submission."""

    status: str  # one of grader.model.TEST_STATUSES
    output: str  # what the student's code printed during the test, capped


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
    isolation: str  # one line, as grader.sandbox.containment.describe says it
