"""A grading job that dies loses no finished result, and its unfinished submissions say why."""

from dying_job import make_jobs_die

from grader.model import CodeUnit, Submission
from grader.run import RunSettings, hidden_tests, run_submissions


def test_submissions_of_a_dead_job_are_errors_and_finished_ones_are_kept(monkeypatch, tmp_path):
    make_jobs_die(monkeypatch, tmp_path)
    unit = (CodeUnit("a", "a.py", "def invoke_tool(request, tools):\n    return {}\n"),)
    submissions = [Submission(name, f"{name}.py", "python", unit) for name in ("a", "b")]
    first, second = run_submissions(submissions, RunSettings(jobs=1))
    assert first.status == "completed"
    assert {o.status for o in first.outcomes} == {"passed"}
    assert second.status == "error"
    assert "not your fault" in second.reason
    assert [o.test_id for o in second.outcomes] == [t.test_id for t in hidden_tests()]
    assert {o.status for o in second.outcomes} == {"error"}
