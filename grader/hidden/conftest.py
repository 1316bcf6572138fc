"""pytest's reading of the hidden suite: its declared cases and categories.

The suite declares its cases and categories in plain Python (grader/hidden/cases.py); these
hooks give pytest the same tests as pytest parameters and markers (declared in pytest.ini), so
that `pytest` lists and collects the suite as any other and a grading job can read it without.
pytest never runs a hidden test: a job calls each one itself with its `submission`, the sandbox
session of the submission being graded (grader/runner.py), so no fixture provides it here.
"""

import pytest

from grader.hidden.cases import CATEGORY_NAME, declared_cases


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize a test that declared its cases, each case marked with a student's words."""
    declared = declared_cases(metafunc.function)
    if declared is not None:
        parameters = [
            pytest.param(case.value, id=case.id, marks=pytest.mark.case(case.words))
            for case in declared.cases
        ]
        metafunc.parametrize(declared.name, parameters)


def pytest_itemcollected(item: pytest.Item) -> None:
    """Mark a test with the category its module names."""
    category = getattr(getattr(item, "module", None), CATEGORY_NAME, None)
    if category is not None:
        item.add_marker(pytest.mark.category(category))
