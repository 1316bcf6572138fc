"""The hidden suite has one reading: its declarations, which a job calls and pytest lists alike.

grader/hidden/cases.py lists the suite as plain data (`declared_suite`); a job calls exactly
that (grader/job/suite.py) without importing pytest, and pytest's collection of grader/hidden is
built from the same declarations and refuses any test they do not list.
"""

import subprocess
import sys
from types import SimpleNamespace

import pytest

from grader.hidden import conftest as hidden_conftest
from grader.hidden.cases import UnreadableSuite, _declared, cases, declared_suite, parametrize
from grader.job.suite import hidden_calls
from grader.paths import HIDDEN_CONFIG, HIDDEN_TESTS, PROJECT_ROOT

pytestmark = []


class Collector:
    """Keeps what pytest collected, in a session that only collects."""

    def __init__(self):
        self.items = []

    def pytest_collection_finish(self, session):
        self.items = list(session.items)


@pytest.fixture(scope="module")
def collected():
    """pytest's own collection of grader/hidden, with the suite's own pytest.ini."""
    collector = Collector()
    arguments = [str(HIDDEN_TESTS), "--collect-only", "-qq", "-p", "no:cacheprovider"]
    arguments += ["-c", str(HIDDEN_CONFIG), "--rootdir", str(HIDDEN_TESTS)]
    assert pytest.main(arguments, plugins=[collector]) == pytest.ExitCode.OK
    return collector.items


def test_pytest_collects_exactly_the_declared_tests_in_the_same_order(collected):
    declared = declared_suite()
    assert len(declared) > 500
    assert [item.name for item in collected] == [test.name for test in declared]
    assert [item.obj for item in collected] == [test.function for test in declared]
    for item, test in zip(collected, declared, strict=True):
        params = item.callspec.params if hasattr(item, "callspec") else {}
        assert params == test.parameters
        assert [m.args[0] for m in item.iter_markers("category")] == list(test.categories)
        assert ", ".join(m.args[0] for m in item.iter_markers("case")) == test.words


def test_a_job_calls_the_declared_tests_with_their_catalogue_entries():
    calls = hidden_calls()
    declared = declared_suite()
    assert [call.function for call in calls] == [test.function for test in declared]
    assert [call.entry["test_id"] for call in calls] == [
        f"{test.categories[0]}/{test.name}" for test in declared
    ]
    assert all(call.entry["description"][0].isupper() for call in calls)


def test_a_job_reads_the_suite_without_importing_pytest():
    script = (
        "import sys, grader.job.main, grader.job.grading; "
        "from grader.job.suite import hidden_calls; tests = hidden_calls(); "
        "print(len(tests), 'pytest' in sys.modules or '_pytest' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == [str(len(declared_suite())), "False"]


def test_pytest_refuses_a_collected_test_the_declarations_do_not_list():
    def test_smuggled(submission):
        """Checks something no job would ever call."""

    first = declared_suite()[0]
    honest = SimpleNamespace(name=first.name, nodeid="x.py::honest", obj=first.function)
    stranger = SimpleNamespace(name="test_smuggled", nodeid="x.py::stranger", obj=test_smuggled)
    impostor = SimpleNamespace(name=first.name, nodeid="x.py::impostor", obj=test_smuggled)
    hidden_conftest.pytest_collection_modifyitems([honest])
    for item in (stranger, impostor):
        with pytest.raises(pytest.UsageError, match=r"not a test grader/hidden/cases\.py declares"):
            hidden_conftest.pytest_collection_modifyitems([item])


@parametrize("value", cases({"one": ("for one", 1), "two": ("for two", 2)}))
def example_with_cases(submission, value):
    """Checks a value."""


def example_without_cases(submission):
    """Checks the submission."""


def example_without_submission():
    """Checks nothing of the submission."""


def test_a_test_is_declared_once_per_case_with_its_value_and_its_words():
    tests = list(_declared("test_values", example_with_cases, ("envelope",)))
    assert [test.parameters for test in tests] == [{"value": 1}, {"value": 2}]
    assert [test.name for test in tests] == ["test_values[one]", "test_values[two]"]
    assert [test.words for test in tests] == ["for one", "for two"]
    [plain] = _declared("test_plain", example_without_cases, ())
    assert (plain.parameters, plain.takes_submission, plain.categories) == ({}, True, ())
    [alone] = _declared("test_alone", example_without_submission, ("envelope",))
    assert not alone.takes_submission


def test_a_test_asking_for_anything_but_the_submission_and_its_case_is_unreadable():
    def asks_for_a_folder(submission, tmp_path):
        """Uses a fixture the job does not provide."""

    @parametrize("other", cases({"one": ("for one", 1)}))
    def takes_no_such_parameter(submission, value):
        """Declares its cases for a parameter it does not take."""

    for function in (asks_for_a_folder, takes_no_such_parameter):
        with pytest.raises(UnreadableSuite, match="may take only `submission`"):
            list(_declared("test_x", function, ("envelope",)))
