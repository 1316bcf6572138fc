"""Every status has one home (grader.model), and every map over statuses covers each of them."""

import json

from grader.job.suite import status_of_error
from grader.model import (
    RUN_STATUSES,
    SETTLED,
    STOPPED_STATUSES,
    TEST_STATUSES,
    RunStatus,
    TestStatus,
)
from grader.reports import class_report, feedback, hints
from grader.sandbox.problems import LoadFailure, OutputLimit, SandboxProblem

pytestmark = []

# Statuses whose meaning is told by the category's own hint or by NOT_JUDGED_HINT instead.
TOLD_ELSEWHERE = {TestStatus.PASSED, TestStatus.FAILED, TestStatus.NOT_JUDGED}


def test_the_feedback_page_words_every_test_status():
    assert set(feedback.STATUS_WORDS) == set(TestStatus)


def test_every_status_that_stops_or_refuses_code_has_a_hint():
    assert set(hints.STATUS_HINTS) == set(TestStatus) - TOLD_ELSEWHERE


def test_the_class_report_words_every_run_status():
    assert set(class_report.RUN_STATUS_WORDS) == set(RunStatus)


def test_statuses_travel_as_plain_strings_and_come_back_as_members():
    assert set(SETTLED) | set(STOPPED_STATUSES) <= set(TestStatus)
    assert json.dumps([TestStatus.NOT_JUDGED, RunStatus.MISSING]) == '["not_judged", "missing"]'
    assert "timeout" in TEST_STATUSES and "missing" in RUN_STATUSES
    assert TestStatus("output_limit") is TestStatus.OUTPUT_LIMIT


def test_every_problem_a_test_can_raise_maps_to_a_test_status():
    problems = [SandboxProblem("x"), OutputLimit("x"), LoadFailure("x", "memory"), AssertionError()]
    problems += [
        type(f"{status}", (SandboxProblem,), {"status": status})("x") for status in TestStatus
    ]
    assert {status_of_error(problem) for problem in problems} <= set(TestStatus)
