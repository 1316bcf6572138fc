"""What a student reads when their code could not be loaded, and how long a worker's note may be."""

from grader.sandbox.problems import SandboxProblem

NOTE_LIMIT = 2000  # characters of one load note or reason the grader keeps


def capped(text: object) -> str:
    """Return a note the worker sent, as text short enough for a student's report."""
    text = str(text) if type(text) is str else "The code could not be loaded."
    return text if len(text) <= NOTE_LIMIT else text[:NOTE_LIMIT] + " [cut]"


FORBIDDEN_REASON = (
    "While it was being loaded, your code used something the grader does not allow in graded "
    "code, so none of it could be tested."
)
OUTPUT_REASON = (
    "Your code printed so much while it was being loaded that the printing had to be "
    "stopped, so none of it could be tested. Remove large or endless print() calls."
)


def load_reason(problem: SandboxProblem) -> str:
    """Say why the code could not be loaded when loading it hung, crashed or filled memory."""
    if problem.status == "memory":
        return (
            "Loading your code needed more memory than the grader allows, so none of it could "
            "be tested. Look for a very large list, string or loop that keeps adding to one at "
            "the top level of your code."
        )
    if problem.status == "timeout":
        return (
            "Loading your code did not finish within the time limit, so none of it could be "
            "tested. Look for a loop or a long computation at the top level of your code."
        )
    return (
        f"Loading your code stopped the grader's process ({problem}), so none of it could be "
        "tested. Look for os._exit() or similar calls at the top level of your code."
    )
