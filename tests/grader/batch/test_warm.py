"""Jobs started ahead by `python -m grader grade` grade like any job, and those unused leave."""

import shutil
import subprocess
import sys
import time

import psutil
import pytest
from grader_cli import read_grades
from process_trees import fork_servers_below

from grader.batch import dispatch
from grader.batch.run import RunSettings, run_submissions
from grader.batch.warm import WarmJobs, jobs_asked
from grader.jobstart import AWAIT
from grader.model import CodeUnit, Submission
from grader.paths import PROJECT_ROOT, SUBMISSIONS

pytestmark = []


@pytest.mark.parametrize(
    ("argv", "count"),
    [
        (["grader", "grade", "class", "--out", "o"], 1),
        (["grader", "grade", "class", "--out", "o", "--jobs", "3"], 3),
        (["grader", "grade", "--jobs=2", "class", "--out", "o"], 2),
        (["grader", "grade", "class", "--jobs", "many"], 0),
        (["grader", "grade", "--merge", "a", "b", "--out", "o"], 0),
        (["grader", "grade", "--help"], 0),
        (["grader", "selfcheck"], 0),
        (["grader"], 0),
    ],
)
def test_only_a_grade_command_starts_jobs_ahead_as_many_as_it_asks(argv, count):
    assert jobs_asked(argv) == count


def waiting_jobs_of(pid):
    """The processes still waiting to be told what to grade that `pid` started ahead."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        try:
            if AWAIT in (process.info["cmdline"] or ()) and (
                process.environ().get("GRADER_PARENT_PID") == str(pid)
            ):
                found.append(process)
        except psutil.Error:
            pass
    return found


@pytest.mark.bwrap
def test_a_job_started_ahead_and_never_used_leaves_quietly():
    warm = WarmJobs.start(2)
    jobs = list(warm.waiting)
    assert len(jobs) == 2
    warm.close()
    assert [job.returncode for job in jobs] == [0, 0]
    assert warm.waiting == []


@pytest.mark.bwrap
def test_a_job_started_ahead_sets_its_fork_server_up_before_it_is_told_what_to_grade(
    monkeypatch, tmp_path
):
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # where the job's runtime copy is made
    warm = WarmJobs.start(1)
    try:
        deadline = time.monotonic() + 30
        while not list(tmp_path.glob("grader-runtime-*/runtime/grader")):
            assert time.monotonic() < deadline, "no runtime copy while the job waited"
            time.sleep(0.01)
        assert warm.waiting[0].poll() is None  # still waiting for its order
    finally:
        warm.close()
    assert list(tmp_path.iterdir()) == []  # unused, it took its set-up away with it


@pytest.mark.bwrap
def test_a_job_started_ahead_starts_no_fork_server_until_it_is_told_what_to_grade(
    monkeypatch, tmp_path
):
    # A run may not need it (nothing left to grade), or may forbid bubblewrap: the server waits
    # for the order, which comes as the probe ends anyway.
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    warm = WarmJobs.start(1)
    try:
        job = psutil.Process(warm.waiting[0].pid)
        deadline = time.monotonic() + 30
        while not list(tmp_path.glob("grader-runtime-*/runtime/grader")):
            assert time.monotonic() < deadline, "no runtime copy while the job waited"
            time.sleep(0.01)
        seen = []
        for _ in range(100):  # a second: the job reads its tests and its set-up ends meanwhile
            seen += fork_servers_below(job)
            time.sleep(0.01)
        assert warm.waiting[0].poll() is None
        assert seen == []
    finally:
        warm.close()


@pytest.mark.bwrap
def test_a_run_with_more_jobs_than_students_grades_them_and_leaves_no_job_waiting(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copyfile(SUBMISSIONS / "correct" / "reference.py", folder / "reference.py")
    command = [sys.executable, "-m", "grader", "grade", str(folder), "--out", str(tmp_path / "out")]
    grading = subprocess.Popen(
        [*command, "--jobs", "3"], cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    output, errors = grading.communicate(timeout=300)
    assert grading.returncode == 0, (output + errors).decode(errors="replace")
    grades = read_grades(tmp_path / "out")
    assert grades["reference"]["score"] == grades["reference"]["max_score"]
    deadline = time.monotonic() + 5
    while (left := waiting_jobs_of(grading.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == []


@pytest.mark.bwrap
def test_a_run_hands_its_work_to_the_job_started_ahead_instead_of_starting_one(monkeypatch):
    def no_new_job(*_args, **_kwargs):
        raise AssertionError("a new job was started while one waited")

    monkeypatch.setattr(dispatch, "run_job", no_new_job)
    source = (SUBMISSIONS / "correct" / "reference.py").read_text(encoding="utf-8")
    submission = Submission("reference", "reference.py", "python", (CodeUnit("r", "r.py", source),))
    warm = WarmJobs.start(1)
    try:
        [result] = run_submissions([submission], RunSettings(jobs=1, warm=warm))
    finally:
        warm.close()
    assert result.status == "completed"
    assert {outcome.status for outcome in result.outcomes} == {"passed"}
