"""Read the committed corpus of generated scenarios (written by `python -m tooling.scenarios`)."""

import functools
import json
from dataclasses import dataclass

from grader.hidden.generated.contract_model import Expected
from grader.paths import GENERATED_CORPUS
from grader.sandbox.crossing import untag
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


def _entry(item: dict[str, dict[str, object]]) -> Entry:
    expected = item["expected"]
    outcomes = tuple(tuple(str(o) for o in call) for call in expected["outcomes"])  # type: ignore[attr-defined]
    model = Expected(
        outcomes,
        dict(expected["calls"]),  # type: ignore[call-overload]
        expected["value"],
        expected["size"],  # type: ignore[arg-type]
        bool(expected["unencodable"]),
    )
    return Entry(item["scenario"], model, untag(expected["value"]))  # type: ignore[arg-type]
