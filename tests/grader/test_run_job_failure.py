"""A grading job that dies loses no finished result, and its unfinished submissions say why."""

import subprocess
import sys

from grader import dispatch
from grader.model import CodeUnit, Submission
from grader.run import RunSettings, hidden_tests, run_submissions

# Writes the result of submission 0 from a real job, then dies before the next one.
DYING_JOB = """
import json, pathlib, sys
out = pathlib.Path(sys.argv[2])
source = json.loads(pathlib.Path(sys.argv[1]).read_text())
first = source["submissions"][0]["key"]
tests = json.loads(pathlib.Path(sys.argv[3]).read_text())
outcomes = [dict(t, status="passed", output="") for t in tests]
# Written then renamed, as real jobs write results: a reader never sees half a file.
(out / "partial").write_text(json.dumps(
    {"status": "completed", "reason": "", "outcomes": outcomes}))
(out / "partial").rename(out / f"{first}.json")
sys.exit(9)
"""


def test_submissions_of_a_dead_job_are_errors_and_finished_ones_are_kept(monkeypatch, tmp_path):
    listing = tmp_path / "tests.json"
    dispatch.run_job(["--list", str(listing)], tmp_path / "list.log").wait()
    real_run_job = dispatch.run_job

    def dying_job(arguments, log_path, notify_fd=None):
        if arguments[0] == "--list":
            return real_run_job(arguments, log_path, notify_fd)
        command = [sys.executable, "-c", DYING_JOB, *arguments, str(listing)]
        return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    monkeypatch.setattr(dispatch, "run_job", dying_job)
    unit = (CodeUnit("a", "a.py", "def invoke_tool(request, tools):\n    return {}\n"),)
    submissions = [Submission(name, f"{name}.py", "python", unit) for name in ("a", "b")]
    first, second = run_submissions(submissions, RunSettings(jobs=1))
    assert first.status == "completed"
    assert {o.status for o in first.outcomes} == {"passed"}
    assert second.status == "error"
    assert "not your fault" in second.reason
    assert [o.test_id for o in second.outcomes] == [t.test_id for t in hidden_tests()]
    assert {o.status for o in second.outcomes} == {"error"}
