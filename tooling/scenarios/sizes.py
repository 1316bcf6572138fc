"""Scenarios of size: arguments of hundreds of KiB to MiB, and values of many small pieces.

A submission may skip the copy of arguments it thinks too big to copy, or measure a value by a
shortcut that only a value of hundreds of pieces shows (each separator, escape and multibyte
character counts). The drawn families stay small, so these are pinned: arguments built in the
worker from a recipe (kinds.large_arguments; the corpus keeps the recipe, not the MiB), and
values whose exact size is the budget, or one byte over it.
"""

from typing import Any

from grader.hidden.probes import TOOL
from grader.sandbox.handlers import Scenario
from grader.sandbox.inside.protocol import ToolSpec
from tooling.scenarios.strategies import encoded_size, returns, scenario

DEFAULT_BUDGET = 4096
# About 266 KB (256 keys of 1,024 ASCII characters in a list) and 2.1 MB (1,024 keys of 1,024
# "é"s in a list): as wide as a shortcut measuring keys or sys.getsizeof might count, and slim
# (kinds.large_arguments says why).
LARGE_ARGUMENTS: tuple[dict[str, Any], ...] = (
    {"make": "large_arguments", "text": "ab", "repeat": 512, "keys": 256},
    {"make": "large_arguments", "text": "\u00e9", "repeat": 1024, "keys": 1024},
)
CHANGES: ToolSpec = {"does": "mutate", "value": returns({"n": 1})["value"]}
GIVES_BACK: ToolSpec = {"does": "return_arguments"}


def large(request_id: object, spec: ToolSpec, recipe: dict[str, Any]) -> Scenario:
    """A call with MiB of arguments, made in the worker (a program's calls are observed as such)."""
    built = scenario(request_id, {TOOL: spec}, arguments=None)
    built["arguments_made"] = recipe
    return built


def ownership() -> tuple[Scenario, ...]:
    """Large arguments a handler changes, or gives back (over the budget), once or twice.

    The MiB recipe is called once, changed: a shortcut for arguments "too big to copy" shows
    there, and every call of MiB costs a correct submission tens of milliseconds of copying
    and measuring.
    """
    smaller, largest = LARGE_ARGUMENTS
    built = [large("req-7", CHANGES, largest)]
    for spec in (CHANGES, GIVES_BACK):
        for repeat in (1, 2):
            one = large("req-7", spec, smaller)
            one["repeat"] = repeat
            built.append(one)
    for one in built:
        one["received"] = True  # what the handler was given is observed
    return tuple(built)


def programs() -> tuple[list[Scenario], ...]:
    """Large arguments changed by one call, then the same recipe again: a new copy each call.

    The smaller recipe does: a copy kept from call to call shows at any size, while a shortcut
    for arguments "too big to copy" meets the MiB once, in ownership(), at a fifth of the cost.
    """
    smaller = LARGE_ARGUMENTS[0]
    small = scenario(1, {TOOL: GIVES_BACK}, arguments={"q": [1]})
    return ([large(1, CHANGES, smaller), large(2, GIVES_BACK, smaller), small],)


def _pieces() -> list[object]:
    """Values of hundreds of small pieces: numbers, keys, escapes and multibyte text."""
    return [
        [n % 7 for n in range(700)],
        {f"k{n}": "\u00e9" for n in range(200)},
        [["\u00e9\U0001f600", None, True, -0.5, 'q"\\'] for _ in range(90)],
    ]


def _exactly(size: int, pieces: list[object]) -> list[object]:
    """Return `pieces` and one ASCII text after them, `size` bytes as JSON in all."""
    base = encoded_size([*pieces, ""])
    return [*pieces, "x" * (size - base)]


def budgets() -> tuple[Scenario, ...]:
    """A value of many pieces at its exact budget and one byte over; at the default one too."""
    built = []
    for value in _pieces():
        size = encoded_size(value)
        for budget in (size, size - 1):
            built.append(scenario("req-7", {TOOL: returns(value)}, max_result_bytes=budget))
    for size in (DEFAULT_BUDGET, DEFAULT_BUDGET + 1):
        value = _exactly(size, [n % 10 for n in range(1000)])
        built.append(scenario("req-7", {TOOL: returns(value)}))  # no budget given: 4096
    for one in built:
        one["outcome_only"] = True
    return tuple(built)
