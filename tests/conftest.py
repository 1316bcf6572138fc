"""What every test module shares: what it needs is declared and enforced (tests/needs.py).

Each module says what it needs in `pytestmark` (the markers are in pyproject.toml); while a test
runs, starting a kernel, nbgrader, Chromium, a grading job or worker, or a VM without its mark
fails it. CI runs every test (`make test`); `make test-fast` runs those that need none of these.
"""

import gc
import sys
from pathlib import Path

import hypothesis  # noqa: F401  (imported before the freeze below: see pytest_collection_finish)
import needs
import pytest

TESTS = Path(__file__).resolve().parent


def pytest_configure(config):
    needs.install(config)
    modules = list(TESTS.rglob("test_*.py"))
    stems = [path.stem for path in modules]
    # Shared builders live in builder modules and conftest.py: a test module that imports
    # another breaks as soon as that one is renamed or tidied.
    borrowing = sorted(
        path.name
        for path in modules
        if any(
            line.startswith(("from test_", "import test_"))
            for line in path.read_text(encoding="utf-8").splitlines()
        )
    )
    if borrowing:
        raise pytest.UsageError(f"test modules import other test modules: {borrowing}")
    # The test folders are not packages, so two modules of one name collide at collection.
    repeated = sorted({stem for stem in stems if stems.count(stem) > 1})
    if repeated:
        raise pytest.UsageError(f"test modules need names unique across tests/: {repeated}")


def pytest_collection_finish(session):
    """Leave what collection built out of every garbage collection the tests set off.

    Collection imports nbgrader, Hypothesis, libcst, Selenium and the rest: hundreds of
    thousands of objects that live as long as the run. Python's collector walked all of them at
    each of its full collections, dozens in `make test-fast`, a quarter of its time. Frozen,
    they are never walked, nor freed, which they never would be anyway; what the tests make is
    collected as before. gc.get_referrers does not see frozen objects, and Hypothesis asks it
    whether a PRNG that a plugin registers (trio's, at Hypothesis's import) is referenced:
    Hypothesis is imported above, so its plugins run before the freeze, not during a test.

    The hidden suite's corpus, once read, is kept for the run too (grader/hidden/judge/corpus.py
    caches it): 130,000 objects that every later full collection walked. Where a collected test
    module imports it, it is read now, to be frozen with the rest.
    """
    corpus = sys.modules.get("grader.hidden.judge.corpus")
    if corpus is not None:
        corpus.families()
    gc.collect()
    gc.freeze()
