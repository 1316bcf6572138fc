"""Every hidden test belongs to exactly one category and explains itself to a student."""

from collections import Counter
from types import SimpleNamespace

import pytest

from grader.hidden.probes import MARKER
from grader.model import CATEGORIES
from grader.plugin import describe
from grader.run import hidden_tests


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
        return [SimpleNamespace(args=(c,)) for c in self.categories]

    def function(self):
        """Checks a thing."""


@pytest.mark.parametrize("categories", [[], ["envelope", "redaction"]])
def test_a_test_without_exactly_one_category_is_flagged(categories):
    entry = describe(FakeItem(categories))
    assert entry["category"] == "uncategorised"
    assert entry["categories"] == categories
