"""pytest's reading of the hidden suite: the tests grader/hidden/cases.py declares, and no other.

The suite declares its cases and categories in plain Python; these hooks give pytest the same
tests as pytest parameters and `category`/`case` markers (declared in pytest.ini), so `pytest`
lists the suite as any other, and refuse a test the declarations do not list as a job would
call it. pytest never runs a hidden test: a job calls each one itself with its `submission`,
the sandbox session of the submission being graded (grader/job/suite.py).
"""

import pytest

from grader.hidden.cases import CATEGORY_NAME, DeclaredTest, declared_cases, declared_suite


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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Refuse any collected test that is not declared, as a job would call it, in cases.py.

    The tests are then put in the declared order, which moves a `runs_last` test to the end.
    """
    suite = declared_suite()
    declared: dict[str, DeclaredTest] = {test.name: test for test in suite}
    for item in items:
        test = declared.get(item.name)
        if test is None or test.function is not getattr(item, "obj", None):
            raise pytest.UsageError(f"{item.nodeid} is not a test grader/hidden/cases.py declares")
    place = {test.name: number for number, test in enumerate(suite)}
    items.sort(key=lambda item: place[item.name])
