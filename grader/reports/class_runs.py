"""How the class report words a run: each run status, and what stopped in a run that stopped.

A stopped run is listed apart from wrong answers: "the run stopped: timed out; 4 tests timed
out", or "the run finished; 1 test crashed" when the run went on after a test's code stopped.
"""

from grader.model import STOPPED_STATUSES, TEST_STATUSES, RunStatus
from grader.reports.class_scores import counted
from grader.reports.feedback import STATUS_WORDS
from grader.reports.summary import StudentSummary

# How the report words each run status (grader.model.RUN_STATUSES), in the students' table.
RUN_STATUS_WORDS: dict[str, str] = {
    RunStatus.COMPLETED: "every hidden test ran",
    RunStatus.TIMEOUT: "timed out",
    RunStatus.CRASH: "crashed",
    RunStatus.ERROR: "could not run",
    RunStatus.UNREADABLE: "the submission could not be read",
    RunStatus.MISSING: "no submission was received",
}

# The verdict byte of each test status that says the code stopped before it could answer.
_STOPPED = {status: TEST_STATUSES.index(status) for status in STOPPED_STATUSES}


def is_stopped(summary: StudentSummary) -> bool:
    """Return whether a graded student's run stopped, or their code did in some test."""
    return summary.status != "completed" or any(
        code in summary.verdicts for code in _STOPPED.values()
    )


def stopped_run(summary: StudentSummary) -> str | None:
    """Return what happened to a graded student's run that did not go to its end, or None."""
    if not is_stopped(summary):
        return None
    stopped = {status: summary.verdicts.count(code) for status, code in _STOPPED.items()}
    if summary.status == "completed":
        parts = ["the run finished"]
    else:
        parts = [f"the run stopped: {RUN_STATUS_WORDS[summary.status]}"]
    parts += [f"{counted(n, 'test')} {STATUS_WORDS[s]}" for s, n in sorted(stopped.items()) if n]
    return "; ".join(parts)
