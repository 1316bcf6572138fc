"""A hidden test declares its cases once, for one parameter, each named in a student's words."""

import pytest

from grader.hidden.cases import Case, cases, declared_cases, parametrize

pytestmark = []


def test_cases_keep_their_order_ids_words_and_values():
    table = {"zero": ("for the id 0", 0), "empty": ('for the id ""', "")}
    assert cases(table) == [Case("zero", "for the id 0", 0), Case("empty", 'for the id ""', "")]


def test_a_declaration_is_found_on_the_function_it_decorates():
    @parametrize("value", cases({"one": ("for one", 1)}))
    def declared(submission, value):
        """Checks a value."""

    def plain(submission):
        """Checks the submission."""

    found = declared_cases(declared)
    assert found is not None and found.name == "value"
    assert [case.id for case in found.cases] == ["one"]
    assert declared_cases(plain) is None


@pytest.mark.parametrize("name", ["first, second", "a b", ""])
def test_a_test_is_parametrized_on_one_parameter_only(name):
    with pytest.raises(ValueError, match="one parameter"):
        parametrize(name, [])


def test_a_test_is_parametrized_once():
    with pytest.raises(ValueError, match="twice"):

        @parametrize("first", cases({"one": ("for one", 1)}))
        @parametrize("second", cases({"two": ("for two", 2)}))
        def twice(submission, first, second):
            """Declares two parametrizations."""
