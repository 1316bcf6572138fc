"""A job grades the same whether it reads the hidden suite on record or pytest collects it."""

import json

import pytest

from grader.model import CodeUnit, Submission
from grader.paths import HIDDEN_RECORD, SUBMISSIONS
from grader.run import RunSettings, run_submissions

pytestmark = [pytest.mark.bwrap]

CHOSEN = [
    "correct/reference.py",
    *(f"{folder}/" for folder in ("buggy/envelope", "buggy/no_retry")),
]


def chosen_submissions():
    paths = []
    for name in CHOSEN:
        found = sorted((SUBMISSIONS / name).glob("*.py")) if name.endswith("/") else []
        paths.extend(found[:2] if found else [SUBMISSIONS / name])
    return [
        Submission(
            path.stem, path.stem, "python", (CodeUnit(path.name, path.name, path.read_text()),)
        )
        for path in paths
    ]


def verdicts():
    """Each chosen submission's status and every hidden test's id and status."""
    results = run_submissions(chosen_submissions(), RunSettings(jobs=1))
    return {
        result.submission.student: (result.status, [(o.test_id, o.status) for o in result.outcomes])
        for result in results
    }


@pytest.fixture
def stale_record():
    """The project's record made stale for one test, then put back as it was."""
    saved = HIDDEN_RECORD.read_bytes() if HIDDEN_RECORD.exists() else None
    HIDDEN_RECORD.parent.mkdir(exist_ok=True)
    HIDDEN_RECORD.write_text("[]", encoding="utf-8")
    yield HIDDEN_RECORD
    if saved is None:
        HIDDEN_RECORD.unlink(missing_ok=True)
    else:
        HIDDEN_RECORD.write_bytes(saved)


def test_a_job_with_a_stale_record_collects_with_pytest_and_grades_the_same(stale_record):
    collected_by_pytest = verdicts()
    recorded = json.loads(stale_record.read_text(encoding="utf-8"))
    some_student = next(iter(collected_by_pytest.values()))
    assert [entry["test_id"] for entry in recorded] == [test_id for test_id, _ in some_student[1]]
    written = stale_record.stat().st_mtime_ns

    read_on_record = verdicts()

    assert stale_record.stat().st_mtime_ns == written  # read, not collected again
    assert read_on_record == collected_by_pytest
    statuses = {status for _, (_, outcomes) in read_on_record.items() for _, status in outcomes}
    assert {"passed", "failed"} <= statuses
