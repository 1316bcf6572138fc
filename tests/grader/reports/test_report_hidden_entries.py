"""results.json lists one entry per hidden test, its cases' points added up in whole cents."""

import json
from collections import Counter

import pytest
from grade_builders import CATALOGUE, grade_for

from grader.batch.run import hidden_tests
from grader.hidden.cases import declared_suite
from grader.hidden.judge.contract_rules import RULES
from grader.model import NOT_JUDGED, RULE_TEST, HiddenTest, RunResult, Submission, TestOutcome
from grader.reports import grade_files, hints
from grader.reports.hidden_entries import NOT_JUDGED_NAME, count_hidden_tests
from grader.score import score

pytestmark = []

RULE_CASES = (
    HiddenTest(f"envelope/{RULE_TEST}[shape]", "envelope", "Keeps the rule.", "for rule 2"),
    HiddenTest(f"envelope/{RULE_TEST}[correlation]", "envelope", "Keeps the rule.", "for rule 1"),
)


@pytest.fixture(scope="module")
def catalogue():
    return hidden_tests()


def entries_of(grade):
    return json.loads(grade_files.results_json(grade))["tests"]


def cents(points):
    return round(points * 100)


def test_each_test_function_is_one_entry_and_each_generated_rule_one_more(catalogue):
    functions = {(t.function.__module__, t.function.__name__) for t in declared_suite()}
    ordinary = {f for f in functions if f[1] != RULE_TEST}
    tests = entries_of(grade_for("ada", ["passed"] * len(catalogue), catalogue=catalogue))
    assert len(tests) == count_hidden_tests(t.test_id for t in catalogue)
    assert len(tests) == len(ordinary) + len(RULES)
    assert len(catalogue) > 5 * len(tests)  # one entry per case made hundreds
    assert len({test["name"] for test in tests}) == len(tests)
    assert sum(test["name"].count(" — for rule ") for test in tests) == len(RULES)


def test_a_partly_failing_submissions_entries_add_up_to_each_category_and_the_total(catalogue):
    # Every third case fails, every seventh steps aside, every eleventh times out.
    statuses = [
        "timeout"
        if n % 11 == 0
        else NOT_JUDGED
        if n % 7 == 0
        else "failed"
        if n % 3 == 0
        else "passed"
        for n in range(len(catalogue))
    ]
    grade = grade_for("ada", statuses, catalogue=catalogue, decided_by="error_codes")
    tests = entries_of(grade)
    by_category = Counter()
    for test in tests:
        by_category[test["tags"][0]] += cents(test["score"])
        assert 0 <= test["score"] <= test["max_score"]
        assert (test["status"] == "passed") == (0 < test["score"] == test["max_score"])
    assert dict(by_category) == {c.category: cents(c.points) for c in grade.categories}
    assert sum(by_category.values()) == cents(grade.score)
    assert 0 < grade.score < 70
    assert {cents(sum(t["max_score"] for t in tests if t["tags"] == [c])) for c in by_category} == {
        1000
    }


def test_a_failed_test_shows_how_many_cases_failed_and_the_first_one():
    grade = grade_for("ada", ["passed", "failed", "passed", "passed"])
    [envelope, *_] = entries_of(grade)
    first_failed = grade.run.outcomes[1]
    assert envelope["status"] == "failed"
    assert (envelope["score"], envelope["max_score"]) == (5.0, 10.0)
    assert envelope["output"] == (
        f"1 of its 2 cases failed.\nFirst failing case: {first_failed.case}.\n"
        + hints.outcome_hint(first_failed)
    )


def test_a_generated_rule_shows_its_smallest_failing_example():
    example = "the id came back as None (for the request {'id': 0})"
    shape, correlation = RULE_CASES
    outcomes = (
        TestOutcome(
            shape.test_id, "envelope", "failed", shape.description, "", shape.case, example
        ),
        TestOutcome(
            correlation.test_id, "envelope", "passed", correlation.description, "", correlation.case
        ),
    )
    submission = Submission(student="ada", path="ada.py", kind="python", units=())
    grade = score(RunResult(submission, outcomes, "completed"), RULE_CASES)
    failed, passed = entries_of(grade)
    assert failed["name"] == "envelope: Keeps the rule — for rule 2"
    assert failed["output"].endswith(f"Smallest failing example: {example}.")
    assert (passed["status"], passed["output"]) == ("passed", "")


def test_a_test_none_of_whose_cases_was_judged_is_shown_as_not_judged_never_as_passed():
    grade = grade_for("ada", [NOT_JUDGED, NOT_JUDGED, "passed", "passed"], decided_by="error_codes")
    [envelope, *_] = entries_of(grade)
    assert envelope["status"] == "failed"
    assert (envelope["score"], envelope["max_score"]) == (0.0, 0.0)
    assert envelope["name"] == "envelope: The id comes back <unchanged>." + NOT_JUDGED_NAME
    output = envelope["output"]
    assert output.startswith("Not judged: for every case of this test, the rule graded under ")
    assert "error_codes" in output and "neither for nor against envelope" in output
    assert grade.score == 20.0  # the envelope category judged nothing, so it earns nothing


def test_a_test_with_some_cases_not_judged_counts_the_judged_ones():
    passed = entries_of(grade_for("ada", [NOT_JUDGED, "passed", "passed", "passed"]))[0]
    assert (passed["status"], passed["score"], passed["max_score"]) == ("passed", 10.0, 10.0)
    assert passed["output"].startswith("Not judged for 1 of its 2 cases: there another category")
    failed = entries_of(grade_for("ada", [NOT_JUDGED, "failed"], decided_by="vocabulary"))[0]
    assert (failed["status"], failed["score"], failed["max_score"]) == ("failed", 0.0, 10.0)
    lines = failed["output"].split("\n")
    assert lines[0] == "1 of its 2 cases failed."
    assert lines[-1].startswith("Not judged for 1 of its 2 cases: there the rule graded under")
    assert "vocabulary" in lines[-1]


def test_the_cases_of_a_test_that_did_not_simply_fail_say_how():
    [envelope, *_] = entries_of(grade_for("ada", ["timeout", "failed", "passed", "passed"]))
    assert envelope["output"].startswith("2 of its 2 cases failed (timed out, failed).\n")
    assert hints.STATUS_HINTS["timeout"] in envelope["output"]


def test_names_are_unique_even_when_two_tests_share_a_sentence():
    twins = (
        *CATALOGUE,
        HiddenTest("ownership/test_copy_again", "ownership", CATALOGUE[3].description),
    )
    names = [test["name"] for test in entries_of(grade_for("ada", ["passed"] * 5, catalogue=twins))]
    assert names[-2:] == [
        "ownership: The handler gets its own copy.",
        "ownership: The handler gets its own copy. (2)",
    ]
