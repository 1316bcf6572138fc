"""How a hidden test declares its cases and its category, in plain Python without pytest.

    CATEGORY = "no_retry"                      # the module's one grading category

    @parametrize("handler", cases(HANDLERS))   # HANDLERS: {id: (a student's words, value)}
    def test_handler_is_called_exactly_once(submission, handler): ...

These declarations are the one reading of the suite: `declared_suite()` lists its tests, by
file and then in the order of definition (a test marked `runs_last` after all), as plain
data. A grading job calls what it lists (grader/job/suite.py); pytest's collection is built
from the same declarations (grader/hidden/conftest.py) and refuses any test they do not list,
so the two cannot disagree.
"""

import importlib
import inspect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

CATEGORY_NAME = "CATEGORY"  # the module attribute naming a hidden test module's category
_DECLARED = "hidden_cases"  # the attribute `parametrize` sets on a test function
_PART = "hidden_part"  # the attribute `judges` sets on a test function
_LAST = "hidden_last"  # the attribute `runs_last` sets on a test function
HIDDEN_PACKAGE = __name__.rpartition(".")[0]
TEST_FILES = "test_*.py"  # pytest's default names, which the suite's pytest.ini keeps
TEST_PREFIX = "test"
SUBMISSION = "submission"  # the one argument a hidden test may take besides its own cases

Function = TypeVar("Function", bound=Callable[..., None])


@dataclass(frozen=True)
class Case:
    """One case of a parametrized hidden test: its id, a student's words for it, its value."""

    id: str
    words: str
    value: object
    part: str = ""  # the rule or code this case judges, when not its test's (grader/score.py)


@dataclass(frozen=True)
class Parametrization:
    """The cases a hidden test runs for, all given to its one parameter `name`."""

    name: str
    cases: tuple[Case, ...]


def cases(table: Mapping[str, tuple[str, object]]) -> list[Case]:
    """Return the cases of {id: (words, value)}: each case named in a student's words.

    The words ("for the id 0") complete the test's one-line description in every report, so a
    student learns which case failed without seeing the hidden code.
    """
    return [Case(name, words, value) for name, (words, value) in table.items()]


def parametrize(name: str, declared: list[Case]) -> Callable[[Function], Function]:
    """Run the decorated hidden test once for each case, its value given as parameter `name`."""
    if not name.isidentifier():
        raise ValueError(f"a hidden test is parametrized on one parameter, not {name!r}")

    def declare(function: Function) -> Function:
        if declared_cases(function) is not None:
            raise ValueError(f"{function.__name__} is parametrized twice")
        setattr(function, _DECLARED, Parametrization(name, tuple(declared)))
        return function

    return declare


def judges(part: str) -> Callable[[Function], Function]:
    """Say which of its category's rules or codes the decorated test judges (parts_of).

    Each part of a category is worth an equal share of its points, however many tests judge
    it; a test of a category with one part needs no declaration.
    """

    def declare(function: Function) -> Function:
        setattr(function, _PART, part)
        return function

    return declare


def runs_last(function: Function) -> Function:
    """Call the decorated test after every other: it judges what all of them asked."""
    setattr(function, _LAST, True)
    return function


def declared_cases(function: object) -> Parametrization | None:
    """Return the cases `parametrize` declared for `function`, or None if it declared none."""
    declared = getattr(function, _DECLARED, None)
    return declared if isinstance(declared, Parametrization) else None


class UnreadableSuite(Exception):
    """A hidden test that takes anything but `submission` and its own cases."""


@dataclass(frozen=True)
class DeclaredTest:
    """One hidden test as declared: a function, and the case it is called with, if any."""

    name: str  # as pytest names it: the function's name, with its case id in brackets
    function: Callable[..., object]
    categories: tuple[str, ...]  # the module's category; none if it names none
    words: str = ""  # the case in a student's words
    parameters: dict[str, object] = field(default_factory=dict)
    takes_submission: bool = True
    part: str = ""  # the rule or code of its category it judges, if it said (judges)


def declared_suite() -> list[DeclaredTest]:
    """Return every hidden test: by file, then in the order of definition, then by case."""
    tests: list[DeclaredTest] = []
    for path in sorted(Path(__file__).parent.glob(TEST_FILES)):
        module = importlib.import_module(f"{HIDDEN_PACKAGE}.{path.stem}")
        category = getattr(module, CATEGORY_NAME, None)
        categories = (category,) if isinstance(category, str) else ()
        for name, function in vars(module).items():
            if name.startswith(TEST_PREFIX) and inspect.isfunction(function):
                tests.extend(_declared(name, function, categories))
    # Stable: every other test keeps its place, by file and then in the order of definition.
    return sorted(tests, key=lambda test: bool(getattr(test.function, _LAST, False)))


def _declared(
    name: str, function: Callable[..., object], categories: tuple[str, ...]
) -> Iterator[DeclaredTest]:
    """Return the tests the function `name` declares: one per case, or itself without cases."""
    parameters = tuple(inspect.signature(function).parameters)
    declared = declared_cases(function)
    allowed = {SUBMISSION, *([declared.name] if declared else [])}
    if not set(parameters) <= allowed or (declared and declared.name not in parameters):
        raise UnreadableSuite(
            f"hidden test {name} takes {', '.join(parameters)}: a hidden test may take only "
            f"`{SUBMISSION}` and its own cases"
        )
    takes_submission = SUBMISSION in parameters
    part = getattr(function, _PART, "")
    if declared is None:
        yield DeclaredTest(name, function, categories, takes_submission=takes_submission, part=part)
        return
    for case in declared.cases:
        yield DeclaredTest(
            f"{name}[{case.id}]",
            function,
            categories,
            case.words,
            {declared.name: case.value},
            takes_submission,
            case.part or part,
        )
