"""The course's visible checks, run in the sandbox on one submission: Gradescope's visible tests.

A student who validates a notebook sees the check cells' verdicts; on Gradescope the same
checks (course/checks) run on the uploaded code, in a worker of their own beside it, and each
function's verdict becomes a 0-point test shown at once. The worker only sends back text, which
is read here as untrusted data: a submission that forges it fools no one but itself, and no
point depends on it.
"""

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from course.checks import CHECKS
from course.manifest import Course
from grader.model import Limits, Submission
from grader.sandbox.crossing import CheckReply
from grader.sandbox.orphans import adopt_orphans, reap_orphans
from grader.sandbox.problems import SandboxProblem
from grader.sandbox.server import ForkServer
from grader.sandbox.session import SubmissionSession

# Every check of every function together, once: the reference needs well under a second.
LIMITS = Limits(timeout=10.0, test_timeout=8.0)
TITLE = "Visible check"  # how every visible check's test name begins
TEXT_SHOWN = 4000  # characters of one check's text shown to the student
NOT_RUN = (
    "The visible checks could not run on your code: {why}. Open your notebooks, run every "
    "check cell and fix what it says, then submit again."
)
# Why the checks could not run, by the sandbox's status for it.
WHY_NOT_RUN = {
    "timeout": f"they did not finish within {LIMITS.test_timeout:.0f} seconds (an endless loop?)",
    "memory": "your code needed more memory than the grader allows",
    "output_limit": "your code printed more than the grader keeps",
    "forbidden": "your code used something the grader does not allow in graded code",
}
CRASHED = "the process running your code stopped (os._exit(), or a crash?)"


@dataclass(frozen=True)
class VisibleCheck:
    """One function's visible check: its title, whether it passed, and what the check said."""

    title: str
    passed: bool
    output: str


def run_visible_checks(
    submission: Submission, course: Course, isolation: str = "auto"
) -> list[VisibleCheck]:
    """Run the visible checks on `submission` in the sandbox; return one VisibleCheck per function.

    A submission with no code to run gets none (the upload checks say why); checks that hang,
    crash or exceed a limit give a single failed VisibleCheck saying so.
    """
    if submission.error is not None or not submission.units:
        return []  # no server is set up for nothing
    with (
        checks_server(isolation) as server,
        visible_checks_beside(submission, course, server) as checks,
    ):
        return checks()


@contextlib.contextmanager
def checks_server(isolation: str = "auto") -> Iterator[ForkServer]:
    """Open a fork server for the checks; RuntimeError if `isolation` cannot be had here.

    Its server process starts here, before any thread exists. Orphans are reaped once the
    caller is done (on leaving), never while its job may still run: collecting any child then
    could take the job's own exit status from the grader.
    """
    adopt_orphans()
    try:
        with ForkServer.open(isolation) as server:
            yield server
    finally:
        reap_orphans()


@contextlib.contextmanager
def visible_checks_beside(
    submission: Submission, course: Course, server: ForkServer
) -> Iterator[Callable[[], list[VisibleCheck]]]:
    """Start the visible checks on `server` and go on; yield what waits for them.

    Gradescope's run grades the same submission meanwhile, in a job whose worker runs on the
    other processor: the checks no longer add their time to the student's wait. The checks run
    in a thread that only waits on its worker's pipes; `server` is the thread's alone until
    the thread is joined.
    """
    if submission.error is not None or not submission.units:
        yield lambda: []
        return
    found: list[list[VisibleCheck] | BaseException] = []
    thread = threading.Thread(
        target=_check_beside, args=(server, submission, course, found), daemon=True
    )
    thread.start()

    def wait() -> list[VisibleCheck]:
        thread.join()
        if isinstance(found[0], BaseException):
            raise found[0]
        return found[0]

    try:
        yield wait
    finally:
        thread.join()  # the checks' own limits end it (LIMITS)


def _check_beside(
    server: ForkServer,
    submission: Submission,
    course: Course,
    found: list[list[VisibleCheck] | BaseException],
) -> None:
    """In the thread: run the checks, and put what they gave, or what went wrong, in `found`."""
    try:
        session = SubmissionSession(submission.units, LIMITS, server)
        try:
            reply = session.visible_checks()
        except SandboxProblem as problem:
            why = WHY_NOT_RUN.get(problem.status, CRASHED)
            found.append([VisibleCheck(TITLE, False, NOT_RUN.format(why=why))])
            return
        found.append(read_checks(reply, course))
    except BaseException as error:  # raised again in the caller's thread, by wait()
        found.append(error)


def read_checks(reply: CheckReply, course: Course) -> list[VisibleCheck]:
    """Return the VisibleChecks in a worker's reply; one failed check if any entry is malformed."""
    entries = _entries(reply["checks"])
    if entries is None:
        why = "what they reported could not be read"
        return [VisibleCheck(TITLE, False, NOT_RUN.format(why=why))]
    checks = []
    for name, passed, text in entries:
        step = course.step_defining(name)
        title = f"{TITLE}: {step.label}, {name}" if step is not None else f"{TITLE}: {name}"
        checks.append(VisibleCheck(title, passed, text[:TEXT_SHOWN]))
    return checks


def _entries(text: str | None) -> list[tuple[str, bool, str]] | None:
    """Parse the worker's text into (function, passed, output); None when it is not as made."""
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if type(data) is not list:
        return None
    entries: dict[str, tuple[str, bool, str]] = {}
    for item in data:
        if type(item) is not dict:
            return None
        name, passed, output = item.get("name"), item.get("ok"), item.get("text")
        if (
            type(name) is not str
            or name not in CHECKS
            or type(passed) is not bool
            or type(output) is not str
        ):
            return None
        entries.setdefault(name, (name, passed, output))
    return list(entries.values())
