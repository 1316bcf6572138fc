"""Read the committed corpus of generated scenarios (written by `python -m tooling.scenarios`)."""

import functools
import json
from dataclasses import dataclass
from typing import Any

from grader.hidden.judge.contract_model import Expected
from grader.paths import GENERATED_CORPUS
from grader.sandbox.crossing import build, untag
from grader.sandbox.handlers import Scenario

CORPUS_FILE = GENERATED_CORPUS


@dataclass(frozen=True)
class Entry:
    """One generated scenario and what the contract model expects of it."""

    scenario: Scenario
    expected: Expected
    value: object  # the expected value of a success, rebuilt from its picture


@functools.cache
def families() -> dict[str, tuple[Entry, ...]]:
    """Return every family's entries, smallest scenario first, read once per process."""
    data = json.loads(CORPUS_FILE.read_text(encoding="utf-8"))
    return {name: tuple(_entry(item) for item in items) for name, items in data.items()}


def _entry(item: dict[str, Any]) -> Entry:
    expected = _expected(item["expected"])
    return Entry(expanded(item["scenario"]), expected, untag(expected.value))


def expanded(scenario: Scenario) -> Scenario:
    """Return the scenario with its arguments as invoke_tool is given them.

    The corpus keeps MiB of arguments as their recipe; the judge reads them whole, built as
    the worker builds them. Any other scenario is returned as it is.
    """
    if "arguments_made" not in scenario:
        return scenario
    request = {**scenario["request"], "arguments": build(scenario["arguments_made"])}
    return {**scenario, "request": request}


def _expected(data: dict[str, Any]) -> Expected:
    """Return the Expected that dataclasses.asdict wrote as `data`, its inner calls' too."""
    return Expected(
        tuple(tuple(str(o) for o in call) for call in data["outcomes"]),
        dict(data["calls"]),
        data["value"],
        data["size"],
        bool(data["unencodable"]),
        {name: _expected(inner) for name, inner in data.get("inner", {}).items()},
    )
