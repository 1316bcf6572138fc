"""How a hidden test declares its cases and its category, in plain Python without pytest.

    CATEGORY = "no_retry"                      # the module's one grading category

    @parametrize("handler", cases(HANDLERS))   # HANDLERS: {id: (a student's words, value)}
    def test_handler_is_called_exactly_once(submission, handler): ...

pytest reads these declarations through grader/hidden/conftest.py, which turns them into its own
parametrization and `category`/`case` markers, so the suite is written, listed and collected as
any pytest suite. A grading job reads the very same declarations directly (grader/suite.py) and
never imports pytest when pytest's own collection, kept on record, agrees with its reading.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

CATEGORY_NAME = "CATEGORY"  # the module attribute naming a hidden test module's category
_DECLARED = "hidden_cases"  # the attribute `parametrize` sets on a test function

Function = TypeVar("Function", bound=Callable[..., None])


@dataclass(frozen=True)
class Case:
    """One case of a parametrized hidden test: its id, a student's words for it, its value."""

    id: str
    words: str
    value: object


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


def declared_cases(function: object) -> Parametrization | None:
    """Return the cases `parametrize` declared for `function`, or None if it declared none."""
    declared = getattr(function, _DECLARED, None)
    return declared if isinstance(declared, Parametrization) else None
