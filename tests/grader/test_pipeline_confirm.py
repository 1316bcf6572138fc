"""A time-out or a crash is confirmed before it is recorded; resuming never keeps a doubtful one.

The jobs are replaced by a script of results (what each grading of each student gives), so
these tests say what the pipeline does with them, whatever the machine.
"""

import pytest
from grader_cli import read_grades

from grader import pipeline
from grader.batch import run
from grader.model import CodeUnit, HiddenTest, JobFacts, RunResult, Submission, TestOutcome

pytestmark = []

TEST = HiddenTest("envelope/test_id", "envelope", "The id comes back unchanged.")


def submission(student):
    unit = CodeUnit("cell", f"{student}.py", f"# {student}\ndef invoke_tool(r, t):\n    pass\n")
    return Submission(student, f"/class/{student}.py", "python", (unit,))


def result(student, status):
    run_status = {"passed": "completed", "failed": "completed"}.get(status, status)
    outcome = TestOutcome(TEST.test_id, TEST.category, status, TEST.description)
    return RunResult(submission(student), (outcome,), run_status, seconds=0.1)


class ScriptedJobs:
    """Stands in for run.run_submissions: each grading of a student gives the next status."""

    def __init__(self, script):
        self.script = {student: list(statuses) for student, statuses in script.items()}
        self.calls = []  # (the students, jobs) of each run

    def __call__(self, submissions, settings, on_result, log_dir=None, on_note=None, **more):
        graded = list(submissions)
        self.calls.append(([s.student for s in graded], settings.jobs))
        more["on_facts"](JobFacts((TEST,), "scripted isolation"))
        for item in graded:
            on_result(result(item.student, self.script[item.student].pop(0)))
        return [None] * len(graded)


@pytest.fixture
def jobs(monkeypatch):
    def install(script):
        scripted = ScriptedJobs(script)
        monkeypatch.setattr(run, "run_submissions", scripted)
        return scripted

    return install


def grade(out, students, **options):
    settings = run.RunSettings(jobs=2)
    pipeline.grade_submissions([submission(s) for s in students], out, settings, **options)
    return {s: row["status"] for s, row in read_grades(out).items()}


def test_a_time_out_that_does_not_happen_again_alone_is_not_recorded(jobs, tmp_path):
    scripted = jobs({"ada": ["passed"], "bob": ["timeout", "passed"], "cy": ["crash", "failed"]})
    assert grade(tmp_path, ["ada", "bob", "cy"]) == {
        "ada": "completed",
        "bob": "completed",
        "cy": "completed",
    }
    # The class first, then the doubtful students again in one job of their own.
    assert scripted.calls == [(["ada", "bob", "cy"], 2), (["bob", "cy"], 1)]


def test_a_time_out_that_happens_again_is_recorded_once(jobs, tmp_path):
    scripted = jobs({"ada": ["timeout", "timeout"]})
    assert grade(tmp_path, ["ada"]) == {"ada": "timeout"}
    assert len(scripted.calls) == 2


def test_resuming_grades_a_kept_time_out_crash_or_error_again_and_keeps_the_rest(jobs, tmp_path):
    jobs({"ada": ["passed"], "bob": ["timeout", "timeout"], "cy": ["error"], "di": ["failed"]})
    grade(tmp_path, ["ada", "bob", "cy", "di"])
    scripted = jobs({"bob": ["passed"], "cy": ["passed"]})
    assert grade(tmp_path, ["ada", "bob", "cy", "di"]) == {
        "ada": "completed",
        "bob": "completed",
        "cy": "completed",
        "di": "completed",
    }
    assert scripted.calls == [(["bob", "cy"], 2)]


def test_regrade_names_more_statuses_to_grade_again(jobs, tmp_path):
    jobs({"ada": ["passed"], "di": ["failed"]})
    grade(tmp_path, ["ada", "di"])
    scripted = jobs({"di": ["passed"]})
    grade(tmp_path, ["ada", "di"], regrade=["failed"])
    assert scripted.calls == [(["di"], 2)]


def test_an_interrupted_run_records_the_first_result_of_a_student_held_back(
    jobs, tmp_path, monkeypatch
):
    scripted = jobs({"ada": ["timeout"]})

    def interrupted(submissions, settings, on_result, **more):
        if scripted.calls:  # the second grading never ends
            raise pipeline.Interrupted(2)
        return scripted(submissions, settings, on_result, **more)

    monkeypatch.setattr(run, "run_submissions", interrupted)
    with pytest.raises(pipeline.Interrupted):
        grade(tmp_path, ["ada"])
    assert {s: row["status"] for s, row in read_grades(tmp_path).items()} == {"ada": "timeout"}
