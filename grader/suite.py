"""The hidden suite as a job runs it: read without pytest when pytest's collection is on record.

    python -m grader.job --list OUT.json   pytest collects the suite; its catalogue is written
                                           to OUT and kept on record (paths.HIDDEN_RECORD)
    tests = hidden_calls(on_collecting)    a job's tests: its own reading of the suite, if it
                                           is what pytest recorded, else pytest's collection

pytest's import, configuration and collection were most of a job's start (about 0.15 s of the
0.25 s before its first worker). The suite's cases and categories are plain Python
(grader/hidden/cases.py), so a job can read them itself, in a few milliseconds. pytest stays the
authority on what the suite holds: a reading is used only when its catalogue is exactly the one
pytest recorded, the same tests in the same order with the same ids, categories and words. No
record yet, a suite changed since, a test written in a way this reading does not follow: the
job collects with pytest, as it always did, and puts the new catalogue on record.
"""

import importlib
import inspect
import json
import sys
from collections.abc import Callable, Iterator

from grader.hidden.cases import CATEGORY_NAME, declared_cases
from grader.jobfiles import CatalogueEntry, catalogue_entry, write_json
from grader.paths import HIDDEN_RECORD, HIDDEN_TESTS
from grader.runner import HiddenCall

HIDDEN_PACKAGE = "grader.hidden"
TEST_FILES = "test_*.py"  # pytest's default names, which the suite's pytest.ini keeps
TEST_PREFIX = "test"


class UnreadableSuite(Exception):
    """A hidden test this reading cannot call as pytest would collect it."""


def hidden_calls(on_collecting: Callable[[], None] | None = None) -> list[HiddenCall]:
    """Return the hidden tests as a job calls them: read on record, else collected by pytest.

    `on_collecting` is called between collected files when pytest collects (a moment for the
    job to start its fork server). pytest's collection failing raises RuntimeError.
    """
    tests = on_record()
    if tests is not None:
        return tests
    print(
        "grader: the hidden tests are not on record as read here: pytest collects them.",
        file=sys.stderr,
    )
    from grader.hidden_session import collect  # pytest's import: only when needed

    return collect(on_collecting)


def on_record() -> list[HiddenCall] | None:
    """Return the suite read without pytest, if its catalogue is the one on record; else None."""
    try:
        recorded = json.loads(HIDDEN_RECORD.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    try:
        tests = read_suite()
    except Exception as error:  # pytest's collection says more, in its own words
        print(
            f"grader: the hidden tests could not be read without pytest: {error}", file=sys.stderr
        )
        return None
    return tests if [test.entry for test in tests] == recorded else None


def put_on_record(catalogue: list[CatalogueEntry]) -> None:
    """Keep pytest's catalogue of the suite on record, where the grader may write."""
    try:
        HIDDEN_RECORD.parent.mkdir(exist_ok=True)
        write_json(HIDDEN_RECORD, catalogue)
    except OSError as error:  # a read-only install: every job collects with pytest, as before
        print(
            f"grader: the hidden tests' catalogue could not be recorded: {error}", file=sys.stderr
        )


def read_suite() -> list[HiddenCall]:
    """Read the hidden tests as pytest collects them: by file, then in the order of definition."""
    tests: list[HiddenCall] = []
    for path in sorted(HIDDEN_TESTS.glob(TEST_FILES)):
        module = importlib.import_module(f"{HIDDEN_PACKAGE}.{path.stem}")
        category = getattr(module, CATEGORY_NAME, None)
        categories = [category] if isinstance(category, str) else []
        for name, function in vars(module).items():
            if name.startswith(TEST_PREFIX) and inspect.isfunction(function):
                tests.extend(calls_of(name, function, categories))
    return tests


def calls_of(
    name: str, function: Callable[..., object], categories: list[str]
) -> Iterator[HiddenCall]:
    """Return the calls pytest would collect of the test function `name`: one per case.

    Raise UnreadableSuite for a test that takes anything but `submission` and its own
    parameter: pytest would look for a fixture, which no hidden test may ask for.
    """
    parameters = tuple(inspect.signature(function).parameters)
    declared = declared_cases(function)
    allowed = {"submission", *([declared.name] if declared else [])}
    if not set(parameters) <= allowed or (declared and declared.name not in parameters):
        raise UnreadableSuite(f"{name} takes {', '.join(parameters)}")
    takes_submission = "submission" in parameters
    if declared is None:
        entry = catalogue_entry(name, function.__doc__, categories)
        yield HiddenCall(entry, function, {}, takes_submission)
        return
    for case in declared.cases:
        entry = catalogue_entry(f"{name}[{case.id}]", function.__doc__, categories, case.words)
        yield HiddenCall(entry, function, {declared.name: case.value}, takes_submission)
