"""Each job keeps to a processor of its own, with its workers, when there is one for every job.

A job and its worker take turns, so a round trip between them is cheapest on one processor
(grader.batch.dispatch.cores_for_jobs says why and what it costs).
"""

import os

import pytest

from grader.batch import dispatch
from grader.batch.run import RunSettings, run_submissions
from grader.model import CodeUnit, Submission

pytestmark = []

PRINTS_ITS_PROCESSORS = """
import os

def invoke_tool(request, tools, **options):
    print("PROCESSORS", sorted(os.sched_getaffinity(0)))
    return {"id": request.get("id"), "ok": True, "value": None, "error": None}
"""


@pytest.mark.parametrize(
    ("offered", "jobs", "chosen"),
    [
        ({0, 1, 2, 3}, 1, [0]),
        ({0, 1, 2, 3}, 2, [0, 1]),
        ({0, 1, 2, 3}, 4, [0, 1, 2, 3]),
        ({2, 5}, 2, [2, 5]),  # the processors this process may use, not the machine's first
        ({0, 1}, 3, []),  # more jobs than processors: the kernel shares them out better
        ({0}, 1, []),  # a single processor: nothing to choose
    ],
)
def test_each_job_gets_a_processor_of_its_own_only_when_there_is_one_for_each(
    monkeypatch, offered, jobs, chosen
):
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: offered)
    assert dispatch.cores_for_jobs(jobs) == chosen


def test_a_system_that_cannot_say_its_processors_lets_every_job_roam(monkeypatch):
    def refuses(_pid):
        raise OSError("not here")

    monkeypatch.setattr(os, "sched_getaffinity", refuses)
    assert dispatch.cores_for_jobs(2) == []


@pytest.mark.bwrap
def test_the_student_code_of_a_job_runs_on_the_processor_chosen_for_that_job():
    given = [
        Submission(
            name, f"{name}.py", "python", (CodeUnit(name, f"{name}.py", PRINTS_ITS_PROCESSORS),)
        )
        for name in ("ada", "bob")
    ]
    chosen = dispatch.cores_for_jobs(2)
    results = run_submissions(iter(given), RunSettings(jobs=2))
    for number, result in enumerate(results):
        printed = {line for o in result.outcomes for line in o.output.splitlines()}
        assert printed, result.reason  # the code ran and printed in some hidden test
        expected = [chosen[number]] if chosen else sorted(os.sched_getaffinity(0))
        assert printed == {f"PROCESSORS {expected}"}, (number, printed)
