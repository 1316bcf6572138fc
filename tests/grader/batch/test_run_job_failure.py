"""A grading job that dies loses no finished result; a new job grades what it left, twice at most.

Student code cannot reach a job (it runs in the job's sandboxed workers), so a job dies for the
machine's reasons: its students are not to blame and are graded again by a new job. Only when
jobs keep dying are the submissions left errors, each saying that the grader failed.
"""

import pytest
from dying_job import DIES_AT_ONCE, make_jobs_die

from grader.batch import dispatch
from grader.batch.run import LOST_REASON, RunSettings, hidden_tests, run_submissions
from grader.model import CodeUnit, Submission

pytestmark = []

REFERENCE_LIKE = (CodeUnit("a", "a.py", "def invoke_tool(request, tools):\n    return {}\n"),)


def submissions(*names):
    return [Submission(name, f"{name}.py", "python", REFERENCE_LIKE) for name in names]


@pytest.mark.bwrap
def test_a_job_that_died_once_is_replaced_and_every_student_is_graded(monkeypatch, tmp_path):
    started = make_jobs_die(monkeypatch, tmp_path, deaths=1)
    notes = []
    results = run_submissions(submissions("a", "b", "c"), RunSettings(jobs=1), on_note=notes.append)
    assert [result.status for result in results] == ["completed"] * 3
    # The dead job's result for "a" is kept; the new job was given only "b" and "c".
    assert started == [("job-0.jsonl", [0, 1, 2]), ("job-0-again-1.jsonl", [1, 2])]
    assert [n for n in notes if "before grading" in n] == [
        "Job 0 ended with exit code 9 before grading 2 of its students, a new job grades them; "
        "its log was not kept."
    ]


def test_students_left_after_the_last_new_job_died_are_errors(monkeypatch, tmp_path):
    started = make_jobs_die(monkeypatch, tmp_path, program=DIES_AT_ONCE)
    notes = []
    first, second = run_submissions(
        submissions("a", "b"), RunSettings(jobs=1), on_note=notes.append
    )
    assert len(started) == 1 + dispatch.RESTARTS
    for result in (first, second):
        assert result.status == "error"
        assert result.reason == LOST_REASON
        assert [o.test_id for o in result.outcomes] == [t.test_id for t in hidden_tests()]
        assert {o.status for o in result.outcomes} == {"error"}
    assert notes[-1].startswith(
        "Job 0 (started again) ended with exit code 9 before grading 2 of its students, "
        "now status error"
    )


def test_a_job_dying_after_each_result_still_grades_everyone_it_can(monkeypatch, tmp_path):
    make_jobs_die(monkeypatch, tmp_path)
    jobs = 1 + dispatch.RESTARTS  # the first and the new ones, each grading one before it dies
    names = [f"s{number}" for number in range(jobs + 1)]
    results = run_submissions(submissions(*names), RunSettings(jobs=1))
    assert [result.status for result in results] == ["completed"] * jobs + ["error"]
    assert {o.status for o in results[0].outcomes} == {"passed"}
