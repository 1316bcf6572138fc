"""Every hidden test belongs to exactly one category and explains itself to a student."""

from collections import Counter
from types import SimpleNamespace

import pytest

from grader.hidden.probes import MARKER
from grader.hidden_session import pytest_arguments
from grader.integrations.gradescope import bundle_entries
from grader.model import CATEGORIES
from grader.paths import HIDDEN_CONFIG
from grader.plugin import describe, direct_arguments
from grader.run import hidden_tests

pytestmark = []


@pytest.fixture(scope="module")
def catalogue():
    return hidden_tests()


def test_every_category_has_tests(catalogue):
    counts = Counter(test.category for test in catalogue)
    assert set(counts) == set(CATEGORIES)
    assert min(counts.values()) >= 10


def test_ids_are_unique_and_name_their_category(catalogue):
    ids = [test.test_id for test in catalogue]
    assert len(ids) == len(set(ids))
    assert all(test.test_id.startswith(test.category + "/test_") for test in catalogue)


def test_descriptions_are_sentences_without_hidden_inputs(catalogue):
    for test in catalogue:
        assert test.description[0].isupper() and test.description.endswith("."), test
        assert MARKER not in test.description


def test_listing_is_deterministic(catalogue):
    assert hidden_tests() == catalogue


class FakeItem:
    """Just enough of a pytest item for `describe`."""

    name = "test_thing[case]"

    def __init__(self, categories):
        self.categories = categories

    def iter_markers(self, name):
        return [SimpleNamespace(args=(c,)) for c in self.categories] if name == "category" else []

    def function(self):
        """Checks a thing."""


@pytest.mark.parametrize("categories", [[], ["envelope", "redaction"]])
def test_a_test_without_exactly_one_category_is_flagged(categories):
    entry = describe(FakeItem(categories))
    assert entry["category"] == "uncategorised"
    assert entry["categories"] == categories


def test_every_case_of_a_parametrized_test_is_named_in_a_students_words(catalogue):
    for test in catalogue:
        if "[" in test.test_id:
            assert test.case.startswith(("for ", "when ", "after ")), test
        assert "(2)" not in test.case and MARKER not in test.case, test
    named = [(test.description, test.case) for test in catalogue]
    assert len(named) == len(set(named)), "two tests would show the same name"


def test_the_hidden_session_reads_its_own_config_file_everywhere():
    arguments = pytest_arguments()
    assert arguments[arguments.index("-c") + 1] == str(HIDDEN_CONFIG)
    assert "hidden/pytest.ini" in HIDDEN_CONFIG.as_posix()
    assert "grader/hidden/pytest.ini" in [name for name, _, _ in bundle_entries()]


def test_a_hidden_test_that_asks_for_another_fixture_is_refused():
    def test_uses_a_folder(submission, tmp_path):
        """Uses a fixture the grading loop does not provide."""

    item = SimpleNamespace(
        nodeid="test_x.py::test_uses_a_folder",
        fixturenames=["submission", "tmp_path"],
        obj=test_uses_a_folder,
    )
    with pytest.raises(pytest.UsageError, match="tmp_path"):
        direct_arguments(item)
    item.fixturenames = ["submission"]
    item.obj = lambda submission: None
    assert direct_arguments(item) == ("submission",)


def test_a_falsy_handler_is_a_case_of_the_code_and_of_the_call_only(catalogue):
    """error_codes asks a falsy handler's code and no_retry its call, each for every such case."""
    asked = {(test.category, test.case) for test in catalogue if "bool() is False" in test.case}
    words = {case for _, case in asked}
    assert len(words) >= 2
    assert asked == {(category, case) for category in ("error_codes", "no_retry") for case in words}
