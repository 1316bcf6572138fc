"""A failure of the grader's own while running one submission costs that student alone.

The job's runner grades its students one after another; whatever the grader raises on one (a fork
server that died starting, a cgroup the kernel refused) is tried once more, then becomes that
student's "error", and the next students are graded as if nothing had happened.
"""

from grader.job.grading import GRADER_ATTEMPTS, Runner
from grader.job.suite import HiddenCall
from grader.jobfiles import catalogue_entry
from grader.model import Limits

pytestmark = []

TESTS = [HiddenCall(catalogue_entry("test_a", "Checks a.", ["envelope"]), lambda: None)]


class Flaky:
    """Stands in for run_submission: fails `failures` times for the student `unlucky`."""

    def __init__(self, unlucky, failures):
        self.unlucky, self.failures, self.calls = unlucky, failures, []

    def __call__(self, entry, _serial=0):
        self.calls.append(entry["key"])
        if entry["key"] == self.unlucky and self.failures:
            self.failures -= 1
            raise OSError("the fork server's socket is gone")
        return {"status": "completed", "reason": "", "outcomes": [], "seconds": 0.1}


def graded_with(run_submission):
    finished = {}
    runner = Runner(TESTS, Limits(), server=None, on_finished=finished.__setitem__)
    runner.run_submission = run_submission
    runner.run_all({"key": key, "units": (), "error": None} for key in ("ada", "bob", "cy"))
    return finished


def test_a_grader_failure_on_one_student_leaves_the_others_graded(capsys):
    flaky = Flaky("bob", failures=GRADER_ATTEMPTS)
    finished = graded_with(flaky)
    assert [finished[key]["status"] for key in ("ada", "bob", "cy")] == [
        "completed",
        "error",
        "completed",
    ]
    assert (
        "The grader itself failed while running your submission (OSError)"
        in (finished["bob"]["reason"])
    )
    assert [outcome["status"] for outcome in finished["bob"]["outcomes"]] == ["error"]
    assert "the fork server's socket is gone" in capsys.readouterr().err  # for the job's log


def test_a_passing_failure_is_tried_again_and_graded():
    flaky = Flaky("bob", failures=1)
    finished = graded_with(flaky)
    assert finished["bob"]["status"] == "completed"
    assert flaky.calls == ["ada", "bob", "bob", "cy"]
