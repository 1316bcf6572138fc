"""Due dates and late policies: nbgrader's methods, nbgrader's time format, clear usage errors."""

from datetime import UTC, datetime, timedelta

import pytest

from grader.gradebook.late import (
    LatePolicy,
    late_penalty,
    parse_due,
    parse_policy,
    parse_time,
)
from grader.model import UsageError

pytestmark = []

DUE = datetime(2026, 3, 1, 23, 59, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    [
        "2026-03-01T23:59+00:00",
        "2026-03-01T23:59Z",
        "2026-03-01 23:59 UTC",
        "2026-03-02 00:59 +0100",
        "2026-03-02 00:59 +01:00",
        "2026-03-02 00:59 Europe/Paris",
    ],
)
def test_a_due_date_names_one_moment_however_it_is_written(text):
    assert parse_due(text) == DUE


def test_nbgraders_own_timestamp_format_is_read_as_it_writes_it():
    assert parse_time("2026-03-01 23:59:00.000000 UTC") == DUE
    assert parse_time("2026-03-01 23:59:00") == DUE  # nbgrader takes a bare time as UTC


@pytest.mark.parametrize("text", ["tomorrow", "2026-13-01 10:00", "2026-03-01 23:59 Mars/Olympus"])
def test_a_due_date_that_is_not_one_is_a_usage_error(text):
    with pytest.raises(UsageError, match="--due"):
        parse_due(text)


def test_per_hour_counts_every_started_hour_and_never_goes_below_zero():
    policy = parse_policy("per-hour:2", DUE)
    assert policy.penalty(60.0, DUE) == 0.0
    assert policy.penalty(60.0, DUE - timedelta(days=1)) == 0.0
    assert policy.penalty(60.0, DUE + timedelta(seconds=1)) == 2.0
    assert policy.penalty(60.0, DUE + timedelta(hours=1)) == 2.0
    assert policy.penalty(60.0, DUE + timedelta(hours=1, seconds=1)) == 4.0
    assert policy.penalty(3.5, DUE + timedelta(hours=5)) == 3.5


def test_zero_takes_every_point_of_a_late_submission_and_none_takes_nothing():
    late = DUE + timedelta(minutes=1)
    assert parse_policy("zero", DUE).penalty(56.83, late) == 56.83
    assert parse_policy(None, DUE).penalty(56.83, late) == 0.0
    assert parse_policy("none", DUE).seconds_late(late) == 60.0
    assert late_penalty("zero", 0.0, 56.83, 0.0) == 0.0


def test_an_unknown_submission_time_is_on_time():
    assert LatePolicy(DUE, "zero").penalty(50.0, None) == 0.0


@pytest.mark.parametrize("text", ["half", "per-hour", "per-hour:-1", "per-hour:nan", "zero:2"])
def test_a_policy_that_is_not_one_is_a_usage_error(text):
    with pytest.raises(UsageError, match="--late-policy"):
        parse_policy(text, DUE)


def test_a_policy_without_a_due_date_is_a_usage_error():
    with pytest.raises(UsageError, match="needs --due"):
        parse_policy("zero", None)
    assert parse_policy(None, None) is None
