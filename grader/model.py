"""Plain data passed between the grader's steps: load → run → score → report."""

from collections.abc import Collection
from dataclasses import dataclass, field
from enum import StrEnum

# The seven grading categories, in the order reports list them: course/contract.py is their home.
from course.contract import CATEGORIES as CATEGORIES

POINTS_PER_CATEGORY = 10


class TestStatus(StrEnum):
    """How one hidden test ended. Anything but PASSED earns no points for that test."""

    __test__ = False  # a vocabulary, not a test class: keeps pytest from collecting it

    PASSED = "passed"
    FAILED = "failed"
    TIMEOUT = "timeout"
    CRASH = "crash"
    ERROR = "error"
    MEMORY = "memory"
    OUTPUT_LIMIT = "output_limit"
    # The code used something the grader refuses (frames, gc, hooks, the channel...).
    FORBIDDEN = "forbidden"
    # Another category's rule already decided the case (the test stepped aside): it counts
    # neither for nor against its own category.
    NOT_JUDGED = "not_judged"


class RunStatus(StrEnum):
    """How a submission's run as a whole ended (RunResult.status)."""

    COMPLETED = "completed"
    TIMEOUT = "timeout"
    CRASH = "crash"
    ERROR = "error"
    UNREADABLE = "unreadable"
    # A student on the roster (grade --roster) sent nothing, so nothing ran; the row scores 0.
    MISSING = "missing"


# Statuses a machine too busy at that moment could cause (a time-out; a crash, as when the
# kernel kills for memory the whole machine lacks): a result with one is graded again, alone,
# once the rest of the class is done, and that second result is the one recorded.
UNCONFIRMED = frozenset({TestStatus.TIMEOUT, TestStatus.CRASH})
# Those, and the grader's own failures: a resumed run grades them again (grade --regrade adds).
DOUBTFUL = UNCONFIRMED | {TestStatus.ERROR}

# The members as plain tuples, in their order (statuses travel as their string values).
TEST_STATUSES = tuple(TestStatus)
RUN_STATUSES = tuple(RunStatus)
NOT_JUDGED = TestStatus.NOT_JUDGED
MISSING = RunStatus.MISSING
# Test statuses that say nothing is wrong with the code in the test's own category.
SETTLED = (TestStatus.PASSED, TestStatus.NOT_JUDGED)
# Test statuses that say the code stopped before it could answer, for the class report.
STOPPED_STATUSES = (
    TestStatus.TIMEOUT,
    TestStatus.CRASH,
    TestStatus.MEMORY,
    TestStatus.OUTPUT_LIMIT,
)


@dataclass(frozen=True)
class Limits:
    """What one submission is held to: the one home of these limits and of their defaults."""

    timeout: float = 10.0  # seconds charged to the whole submission (grader.sandbox.clock)
    test_timeout: float = 2.0  # seconds charged to one test, loading included
    output_limit: int = 65536  # bytes of printed output kept per test
    memory_mb: int = 512  # memory of a worker (shared memory and tmpfs files included), MiB
    processes: int = 64  # processes (and threads) a worker's user may have at once
    # What the trusted side may hold of what a submission's workers send it, over all its tests,
    # in MiB as grader.sandbox.client.held_size estimates it; the reference needs about 1.5.
    # The trusted side's own processor time for a submission is held to `timeout` too.
    held_mb: int = 32

    @classmethod
    def scaled(cls, timeout: float, **others: int) -> "Limits":
        """Return the limits for a submission allowed `timeout` seconds: its tests' scaled too."""
        return cls(timeout=timeout, test_timeout=timeout * TEST_SHARE, **others)


# What share of a submission's time one test may use (2 s of 10 by default).
TEST_SHARE = Limits.test_timeout / Limits.timeout


class UsageError(Exception):
    """The command line names nothing gradable; the message is one line for the instructor.

    Here, not in a step: intake, batch (shards) and the gradebook (roster, dates) all raise it,
    and the CLI above them prints it.
    """


class NotJudged(Exception):
    """Raised by a hidden test whose case another category's rule has already decided.

    `category` is that category and `scenario` the key of the scenario (one call of
    invoke_tool) it decides by. The step aside stands only if a test of `category` asked that
    very scenario and judged it; otherwise the test that stepped aside fails (grader/job/suite.py).
    """

    def __init__(self, reason: str, category: str, scenario: object) -> None:
        super().__init__(reason)
        self.category = category
        self.scenario = scenario


class FailedExample(AssertionError):
    """Raised by a hidden test of generated scenarios: the smallest one the submission failed.

    `example` says that scenario and what went wrong in a student's words; the report shows it
    (an ordinary failure's detail may hold hidden inputs and is never shown).
    """

    def __init__(self, fault: str, example: str, taught: str = "") -> None:
        said = f"{fault} ({example})"
        super().__init__(said)
        self.example = said[:EXAMPLE_LIMIT]
        self.taught = taught  # the id of a hidden test whose lesson section teaches the example


EXAMPLE_LIMIT = 700  # characters of a failing example a report shows


@dataclass(frozen=True, slots=True)
class CodeUnit:
    """One piece of student code to run, in order: an exercise cell or a whole `.py` file."""

    label: str  # how messages name it to the student
    filename: str  # what tracebacks show, so the student can find the line
    source: str


@dataclass(frozen=True, slots=True, weakref_slot=True)
class Submission:
    """What the load step found for one student: code to run, or why there is none."""

    student: str
    path: str
    kind: str  # "lessons", "notebook" or "python"
    units: tuple[CodeUnit, ...]
    problems: tuple[str, ...] = ()  # notes for the student, such as a missing exercise cell
    error: str | None = None  # set when nothing at all can be run: the student's result says why
    # Set when the grader itself failed on this submission, or refused its student id: the
    # result is then "error" with this reason, not "unreadable", for it is not the student's doing.
    failure: str | None = None
    # The instructor's folder that `path` is read from without following links (its lateness).
    within: str = ""
    # Notes for the instructor's summary, not the student's: files read that have other names.
    flags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TestOutcome:
    """How one hidden test ended for one submission."""

    __test__ = False  # a result, not a test class: keeps pytest from collecting it

    test_id: str
    category: str
    status: str
    description: str  # what the test checks, in a student's words, with no hidden inputs
    output: str = ""  # what the student's code printed during the test, capped
    case: str = ""  # which case of a parametrized test, in a student's words ("for the id 0")
    example: str = ""  # the smallest generated scenario it failed, and how (FailedExample)
    taught: str = ""  # the id of a hidden test whose lesson section teaches that example
    part: str = ""  # the rule or code of its category it judges (course.contract.parts_of)
    # For a test that stepped aside (not_judged): the category whose rule decided its case, so a
    # report can say which fault hid it.
    decided_by: str = ""


# The test every category has over the generated scenarios: each of its cases judges one rule
# of the contract, so reports count each case as a hidden test of its own.
RULE_TEST = "test_generated_scenarios_keep_the_rule"


@dataclass(frozen=True, slots=True)
class RunResult:
    """Every hidden test's outcome for one submission, and how the run as a whole went."""

    submission: Submission
    outcomes: tuple[TestOutcome, ...]
    status: str  # one of RUN_STATUSES
    reason: str = ""  # in a student's words, when status is not "completed"
    # Seconds charged to the submission's code by the sandbox (grader.sandbox.clock), when it ran:
    # they differ from run to run, so results with the same verdicts are equal whatever they say.
    seconds: float | None = field(default=None, compare=False)

    def has_status(self, statuses: Collection[str]) -> bool:
        """Say whether the run, or any of its tests, ended with one of `statuses`."""
        return self.status in statuses or any(o.status in statuses for o in self.outcomes)


@dataclass(frozen=True)
class HiddenTest:
    """One hidden test as reports show it, known without running anything."""

    test_id: str
    category: str
    description: str
    case: str = ""
    part: str = ""  # the rule or code of its category it judges (course.contract.parts_of)


@dataclass(frozen=True)
class JobFacts:
    """What a grading job knows before its first result: the hidden tests, the isolation."""

    hidden_tests: tuple[HiddenTest, ...]
    isolation: str  # one line, as grader.sandbox.wording.describe says it


@dataclass(frozen=True)
class CategoryScore:
    """Points earned in one category: the worth of its passed tests, which add up to its points.

    Only judged tests count: a test that stepped aside (not_judged) is worth nothing, and the
    category's points are shared among the others, in whole cents that add up exactly.
    """

    category: str
    passed: int
    total: int
    points: float
    max_points: float
    judged: int = 0
    worth: tuple[float, ...] = ()  # each test's points if passed, in outcome order


@dataclass(frozen=True)
class Grade:
    """The scored result for one student, ready to report."""

    run: RunResult
    categories: tuple[CategoryScore, ...]
    score: float
    max_score: float


def failure_reason(step: str, error: BaseException) -> str:
    """Say to a student, in plain words, that the grader failed while `step` their submission."""
    return (
        f"The grader itself failed while {step} your submission ({type(error).__name__}), so "
        "it could not be graded. This is not your fault; tell your teacher, who can grade it "
        "again."
    )
