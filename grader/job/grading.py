"""The job's body: its tests and fork server made ready, then one submission after another graded.

`grade` sets the job up (the hidden suite, the fork server, facts.json) and hands the
submissions to a Runner, which runs every hidden test for each in turn (grader/job/suite.py
calls one test) and writes each result as soon as it is done. grader/job/main.py is the process
around it: signals, its parent, and how it ends.
"""

import contextlib
import gc
import os
import sys
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from grader.job.suite import HiddenCall, Verdict, call_directly, hidden_calls, honour_step_asides
from grader.jobfiles import (
    FACTS,
    CatalogueEntry,
    DetailedOutcome,
    GradingEntry,
    JobEntry,
    OutcomeData,
    ResultFile,
    read_job_input,
    write_json,
)
from grader.jobstart import chosen_core, notifier
from grader.model import RUN_STATUSES, CodeUnit, Limits, failure_reason
from grader.sandbox.problems import LoadFailure
from grader.sandbox.server import ForkServer
from grader.sandbox.session import SubmissionSession
from grader.sandbox.wording import describe

CANNOT_START = 3  # no hidden tests or no workers: the job grades nobody
# A submission the grader itself failed on is tried this many times in all.
GRADER_ATTEMPTS = 2


def grade(input_path: str, output_dir: str) -> int:
    """Run the hidden tests for each submission in the input file; return the exit status."""
    data, entries = read_job_input(Path(input_path))
    notify = notifier()
    core = chosen_core()
    try:
        tests = hidden_calls()
    except Exception as error:  # the instructor's suite, not a student's: said in one line
        print(f"grader: the hidden tests could not be read: {error}", file=sys.stderr)
        return CANNOT_START
    with contextlib.ExitStack() as stack:
        try:  # the job and each worker keep to the chosen processor: round trips are cheapest
            server = stack.enter_context(ForkServer.open(data["isolation"], core))
        except (OSError, RuntimeError) as error:
            print(f"grader: the job could not start: {error}", file=sys.stderr)
            return CANNOT_START
        catalogue = [test.entry for test in tests]
        freeze_what_lasts()
        write_json(
            Path(output_dir) / FACTS,
            {"catalogue": catalogue, "isolation": describe(server.isolation)},
        )
        notify()
        keep_to(core)

        def on_finished(key: str, result: ResultFile) -> None:
            write_json(Path(output_dir) / f"{key}.json", result)
            notify()

        Runner(tests, Limits(**data["limits"]), server, on_finished).run_all(read_entries(entries))
    return 0


def freeze_what_lasts() -> None:
    """Keep what the job holds for good (the hidden suite, its corpus) out of every collection.

    The collector's full passes would walk those hundred thousand objects again and again while
    a submission's calls allocate: about 30 ms each, most of a later submission's own time.
    """
    gc.collect()
    gc.freeze()


def read_entries(entries: Iterable[JobEntry]) -> Iterator[GradingEntry]:
    """Turn the job's input entries into the runner's, one at a time."""
    for item in entries:
        yield {
            "key": str(item["key"]),
            "units": tuple(CodeUnit(**unit) for unit in item.get("units", ())),
            "error": item.get("error"),
        }


def keep_to(core: int | None) -> None:
    """Keep this process on `core` from now on (None: anywhere).

    A processor the system no longer offers is not an error: the job then runs wherever the
    kernel puts it, only a little slower.
    """
    if core is not None:
        with contextlib.suppress(AttributeError, OSError):
            os.sched_setaffinity(0, {core})


class Runner:
    """Runs the hidden tests for each submission in turn."""

    def __init__(
        self,
        tests: Sequence[HiddenCall],
        limits: Limits,
        server: ForkServer,
        on_finished: Callable[[str, ResultFile], None],
    ) -> None:
        """`server` is the job's ForkServer; `on_finished(key, result)` gets each result."""
        self.tests = tests
        self.catalogue = [test.entry for test in tests]
        self.limits = limits
        self.server = server
        self.on_finished = on_finished
        # What the tests work out once for every submission of the job (SubmissionSession.shared).
        self.shared: dict[str, object] = {}

    def run_all(self, entries: Iterable[GradingEntry]) -> None:
        """Grade every entry, read one at a time (a class's code is never held at once)."""
        for serial, entry in enumerate(entries):
            self.on_finished(entry["key"], self.graded(entry, serial))

    def graded(self, entry: GradingEntry, serial: int) -> ResultFile:
        """Run one submission; a failure of the grader's own costs that student alone.

        What the student's code does ends as a test or load status; anything raised here is the
        grader's (a fork server that died starting, a cgroup the kernel refused). It is tried
        once more, then becomes this student's "error", and the job goes on with the next.
        The traceback goes to the job's log for the instructor.
        """
        for _attempt in range(GRADER_ATTEMPTS):
            try:
                return self.run_submission(entry, serial)
            except Exception as error:
                print(f"grader: the grader failed on submission {entry['key']}:", file=sys.stderr)
                traceback.print_exc()
                failure = error
        return self.result_for_all("error", "error", failure_reason("running", failure))

    def run_submission(self, entry: GradingEntry, serial: int = 0) -> ResultFile:
        """Run every hidden test for one submission and return its result as plain data.

        `serial` numbers the submission in this job, so its workers get a user id of their own.
        """
        if entry["error"] is not None:
            return self.result_for_all("error", "unreadable", entry["error"])
        session = SubmissionSession(entry["units"], self.limits, self.server, serial, self.shared)
        try:
            session.start()
        except LoadFailure as failure:
            session.stop()
            status = failure.status if failure.status in RUN_STATUSES else "error"
            return self.result_for_all(failure.status, status, failure.reason, session.spent)
        verdicts: list[Verdict] = []
        outputs: list[str] = []
        try:
            for test in self.tests:
                verdicts.append(call_directly(test, session))
                outputs.append(session.take_output())
        finally:
            session.stop()
        categories = [entry["category"] for entry in self.catalogue]
        outcomes: list[OutcomeData] = [
            _outcome(entry, verdict, output)
            for entry, verdict, output in zip(
                self.catalogue, honour_step_asides(categories, verdicts), outputs, strict=True
            )
        ]
        return self.finish(session, outcomes)

    def finish(self, session: SubmissionSession, outcomes: list[OutcomeData]) -> ResultFile:
        """Return the result of a submission whose tests all ran."""
        notes = " ".join(filter(None, [session.overrun(), *session.problems]))
        if session.out_of_time():
            used = session.time_words()
            later = " So the tests that had not finished by then are marked timeout."
            reason = used + later if used else ""
            return {
                "status": "timeout",
                "reason": f"{reason} {notes}".strip(),
                "outcomes": outcomes,
                "seconds": session.spent,
            }
        return {
            "status": "completed",
            "reason": notes,
            "outcomes": outcomes,
            "seconds": session.spent,
        }

    def result_for_all(
        self, test_status: str, status: str, reason: str, seconds: float | None = None
    ) -> ResultFile:
        """Return a result in which every hidden test ended with the same status."""
        outcomes: list[OutcomeData] = [
            {
                **entry,
                "status": test_status,
                "output": "",
                "example": "",
                "taught": "",
                "decided_by": "",
            }
            for entry in self.catalogue
        ]
        return {"status": status, "reason": reason, "outcomes": outcomes, "seconds": seconds}


def _outcome(entry: CatalogueEntry, verdict: Verdict, output: str) -> DetailedOutcome:
    return {
        **entry,
        "status": verdict.status,
        "detail": verdict.detail,
        "output": output,
        "example": verdict.example,
        "taught": verdict.taught,
        "decided_by": verdict.claim[0] if verdict.claim else "",
    }
