"""Every hidden test belongs to exactly one category and explains itself to a student."""

from collections import Counter

import pytest

from course.contract import category_named, parts_of
from grader.batch.run import hidden_tests
from grader.hidden.cases import declared_suite
from grader.hidden.judge.contract_rules import RULES, Rule
from grader.hidden.probes import MARKER
from grader.jobfiles import catalogue_entry
from grader.model import CATEGORIES, RULE_TEST

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


@pytest.mark.parametrize("categories", [[], ["envelope", "redaction"]])
def test_a_test_without_exactly_one_category_is_flagged(categories):
    entry = catalogue_entry("test_thing[case]", "Checks a thing.", categories)
    assert entry["category"] == "uncategorised"
    assert entry["categories"] == categories


def test_every_case_of_a_parametrized_test_is_named_in_a_students_words(catalogue):
    for test in catalogue:
        if "[" in test.test_id:
            assert test.case.startswith(("for ", "when ", "after ")), test
        assert "(2)" not in test.case and MARKER not in test.case, test
    named = [(test.description, test.case) for test in catalogue]
    assert len(named) == len(set(named)), "two tests would show the same name"


def test_a_falsy_handler_is_a_case_of_the_code_and_of_the_call_only(catalogue):
    """error_codes asks a falsy handler's code and no_retry its call, each for every such case."""
    asked = {(test.category, test.case) for test in catalogue if "bool() is False" in test.case}
    words = {case for _, case in asked}
    assert len(words) >= 2
    assert asked == {(category, case) for category in ("error_codes", "no_retry") for case in words}


def test_every_test_judges_one_part_of_its_category_and_every_part_is_judged(catalogue):
    """Weights go by rule or code (course.contract.parts_of): each test names which it judges."""
    for name in CATEGORIES:
        parts = parts_of(category_named(name))
        judged = {test.part for test in catalogue if test.category == name}
        assert judged == set(parts), name


def test_every_rule_over_the_generated_scenarios_is_a_case_of_the_one_rule_test():
    """Reports make each case of RULE_TEST a test of its own: it must hold exactly the rules."""
    judging = {
        test.name
        for test in declared_suite()
        if any(isinstance(value, Rule) for value in test.parameters.values())
    }
    named = {test.name for test in declared_suite() if test.function.__name__ == RULE_TEST}
    assert judging == named
    assert len(named) == len(RULES)
