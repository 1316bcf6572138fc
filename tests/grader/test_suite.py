"""A job reads the hidden suite without pytest only when pytest's own collection, on record, agrees.

pytest is the authority on what the suite holds (grader/hidden_session.py puts its catalogue on
record); grader/suite.py reads the same plain-Python declarations (grader/hidden/cases.py), and a
job uses that reading only when its catalogue is exactly the one pytest recorded.
"""

import json
import subprocess
import sys

import pytest

from grader import suite
from grader.hidden.cases import cases, parametrize
from grader.hidden_session import collect
from grader.paths import PROJECT_ROOT

pytestmark = []


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    """pytest's own collection of the suite, in this process, recording to a folder of its own."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(suite, "HIDDEN_RECORD", tmp_path_factory.mktemp("record") / "collected.json")
        return collect()


@pytest.fixture
def record(tmp_path, monkeypatch):
    """Where this test's record is kept: a folder that does not exist yet."""
    path = tmp_path / "__pycache__" / "collected.json"
    monkeypatch.setattr(suite, "HIDDEN_RECORD", path)
    return path


def catalogue_of(tests):
    return [test.entry for test in tests]


def test_reading_the_suite_gives_exactly_what_pytest_collects(collected):
    read = suite.read_suite()
    assert len(read) > 500
    assert catalogue_of(read) == catalogue_of(collected)
    # Each case calls the same function with the same value pytest would give it.
    assert [(t.function, t.parameters, t.takes_submission) for t in read] == [
        (t.function, t.parameters, t.takes_submission) for t in collected
    ]


def test_a_job_reads_a_suite_on_record_without_importing_pytest(collected):
    suite.put_on_record(catalogue_of(collected))  # the project's own record, as bytecode writes it
    # All a job imports on its way to its first student, when the suite is on record.
    script = (
        "import sys, grader.job, grader.grading; from grader.suite import on_record; "
        "tests = on_record(); "
        "print(len(tests or ()), 'pytest' in sys.modules or '_pytest' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == [str(len(collected)), "False"]


ALTERATIONS = {
    "a_test_left_out": lambda entries: entries[1:],
    "two_tests_swapped": lambda entries: [entries[1], entries[0], *entries[2:]],
    "another_description": lambda entries: [{**entries[0], "description": "Else."}, *entries[1:]],
    "other_case_words": lambda entries: [{**entries[0], "case": "for else"}, *entries[1:]],
    "another_category": lambda entries: [{**entries[0], "category": "vocabulary"}, *entries[1:]],
    "a_test_more": lambda entries: [*entries, entries[0]],
}


@pytest.mark.parametrize("alteration", ALTERATIONS.values(), ids=ALTERATIONS)
def test_a_record_that_differs_from_the_suite_in_any_way_is_not_used(record, collected, alteration):
    record.parent.mkdir()
    record.write_text(json.dumps(alteration(catalogue_of(collected))), encoding="utf-8")
    assert suite.on_record() is None


@pytest.mark.parametrize(
    "text", [None, "", "[", "{}"], ids=["missing", "empty", "torn", "not_a_list"]
)
def test_a_record_that_is_missing_or_unreadable_is_not_used(record, text):
    if text is not None:
        record.parent.mkdir()
        record.write_text(text, encoding="utf-8")
    assert suite.on_record() is None


def test_the_record_pytest_wrote_is_used(record, collected):
    suite.put_on_record(catalogue_of(collected))
    assert catalogue_of(suite.on_record() or ()) == catalogue_of(collected)


def test_a_job_without_a_record_collects_with_pytest_and_records_what_it_found(
    record, collected, capsys
):
    tests = suite.hidden_calls()
    assert catalogue_of(tests) == catalogue_of(collected)
    assert json.loads(record.read_text(encoding="utf-8")) == catalogue_of(collected)
    assert "pytest collects them" in capsys.readouterr().err
    assert catalogue_of(suite.hidden_calls()) == catalogue_of(collected)  # now on record
    assert "pytest collects them" not in capsys.readouterr().err


def test_a_record_that_cannot_be_written_leaves_the_job_collecting(tmp_path, monkeypatch, capsys):
    blocked = tmp_path / "a-file"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setattr(suite, "HIDDEN_RECORD", blocked / "__pycache__" / "collected.json")
    suite.put_on_record([])
    assert "could not be recorded" in capsys.readouterr().err


@parametrize("value", cases({"one": ("for one", 1), "two": ("for two", 2)}))
def example_with_cases(submission, value):
    """Checks a value."""


def example_without_cases(submission):
    """Checks the submission."""


def example_without_submission():
    """Checks nothing of the submission."""


def test_a_test_is_called_once_per_case_with_its_value_and_its_words():
    calls = list(suite.calls_of("test_values", example_with_cases, ["envelope"]))
    assert [call.parameters for call in calls] == [{"value": 1}, {"value": 2}]
    assert [call.entry["test_id"] for call in calls] == [
        "envelope/test_values[one]",
        "envelope/test_values[two]",
    ]
    assert [call.entry["case"] for call in calls] == ["for one", "for two"]
    assert {call.entry["description"] for call in calls} == {"Checks a value."}
    [plain] = suite.calls_of("test_plain", example_without_cases, [])
    assert (plain.parameters, plain.takes_submission) == ({}, True)
    assert plain.entry["category"] == "uncategorised"
    [alone] = suite.calls_of("test_alone", example_without_submission, ["envelope"])
    assert not alone.takes_submission


def test_a_test_asking_for_anything_but_the_submission_and_its_case_is_unreadable():
    def asks_for_a_folder(submission, tmp_path):
        """Uses a fixture the job does not provide."""

    @parametrize("other", cases({"one": ("for one", 1)}))
    def takes_no_such_parameter(submission, value):
        """Declares its cases for a parameter it does not take."""

    for function in (asks_for_a_folder, takes_no_such_parameter):
        with pytest.raises(suite.UnreadableSuite):
            list(suite.calls_of("test_x", function, ["envelope"]))
