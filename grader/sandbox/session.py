"""One submission's time in the sandbox: a worker kept alive across tests, replaced when it fails.

Hidden tests call `SubmissionSession.call(scenario)`. A test that hangs or kills the worker gets
a SandboxProblem (labelled timeout or crash) and the next test starts a fresh worker, until the
submission's own time budget is spent; from then on every call is a timeout straight away.
Time is charged as `grader.sandbox.clock` says: the student's own processor time while their
code computes, wall time while it waits.
"""

import contextlib
import math
import time
from collections.abc import Callable, Iterator, Sequence

from grader.model import CodeUnit, Limits
from grader.sandbox import limit_notes
from grader.sandbox.client import Allowance, Encoded, Worker, encode_request, worker_limits
from grader.sandbox.clock import Stopwatch, wall_limit
from grader.sandbox.handlers import RecipeError, Scenario, Toolbox
from grader.sandbox.inside.protocol import (
    BatchRequest,
    CheckReply,
    CodeUnitMessage,
    LoadRequest,
    Reply,
    RunRequest,
    ToolAnswer,
    ToolCall,
)
from grader.sandbox.inside.recipes import every_tool
from grader.sandbox.load_notes import FORBIDDEN_REASON, OUTPUT_REASON, capped, load_reason
from grader.sandbox.observation import Observation, ScenarioKey, scenario_key
from grader.sandbox.problems import (
    LoadFailure,
    OutputLimit,
    SandboxCrash,
    SandboxForbidden,
    SandboxProblem,
    SandboxTimeout,
)
from grader.sandbox.server import ForkServer


class SubmissionSession:
    """Run scenarios for one submission, starting workers as needed within its time budget."""

    def __init__(
        self,
        units: Sequence[CodeUnit],
        limits: Limits,
        server: ForkServer,
        serial: int = 0,
        shared: dict[str, object] | None = None,
    ) -> None:
        """Fork workers from `server` (the job's ForkServer).

        `serial` numbers the submission within its job; it picks the workers' user id.
        `shared` is what the job's tests work out once for all its submissions: requests and
        verdicts, each a function of what it is kept by, never of a submission alone.
        """
        self.units: list[CodeUnitMessage] = [
            {"label": u.label, "filename": u.filename, "source": u.source} for u in units
        ]
        self.limits = limits
        self.server = server
        self.uid = server.isolation.uid_for(serial)
        self.spent = 0.0  # seconds charged so far, over all the submission's workers
        # What the trusted side holds and spends for this submission (grader.sandbox.client).
        self.allowance = Allowance(limits.held_mb << 20, limits.timeout)
        self.wall_end = time.monotonic() + wall_limit(limits.timeout)
        self.worker: Worker | None = None
        self.workers_started = 0
        self.output: list[str] = []
        self.problems: tuple[str, ...] = ()
        # scenario_key of a scenario -> its Observation, for this submission only
        self.observed: dict[ScenarioKey, Observation] = {}
        # scenario_key of a scenario -> the scenario, for a test that judges every one asked
        self.scenarios: dict[ScenarioKey, Scenario] = {}
        self.asked: set[ScenarioKey] = set()  # the scenarios the current test asked
        # What the submission's tests work out once and share, by name (a batch's readings).
        self.memo: dict[str, object] = {}
        self.shared: dict[str, object] = {} if shared is None else shared

    def start(self) -> Worker:
        """Start a worker and load the code; raise LoadFailure or a SandboxProblem if it fails.

        Return the worker, which the session keeps until `stop()`.
        """
        self.worker = worker = self._new_worker()
        message: LoadRequest = {"op": "load", "units": self.units}
        try:
            reply = self._ask(worker, message)
        except SandboxProblem as problem:
            raise LoadFailure(load_reason(problem), problem.status) from None
        if worker.output_full():
            self.stop()
            raise LoadFailure(OUTPUT_REASON, "output_limit")
        if "loaded" not in reply or not reply["loaded"]:
            self.stop()
            reason = capped(reply.get("reason", "The code could not be loaded."))
            if reply.get("forbidden"):
                raise LoadFailure(f"{FORBIDDEN_REASON} {reason}", "forbidden")
            raise LoadFailure(reason)
        self.problems = tuple(capped(problem) for problem in reply.get("problems", ()))
        return worker

    def visible_checks(self) -> CheckReply:
        """Run the course's visible checks on the code in a worker of their own; return its reply.

        The worker is stopped afterwards, so no state the checks left behind reaches a hidden
        test. Raise a SandboxProblem when the checks hang, crash or print without end.
        """
        self.worker = worker = self._new_worker()
        message: LoadRequest = {"op": "load", "units": self.units, "check": True}
        try:
            reply = self._ask(worker, message)
            if worker.output_full():
                raise OutputLimit("the code printed more output than the limit allows")
        finally:
            self.stop()
        if "checks" not in reply:
            raise SandboxProblem(str(reply.get("error", "the worker did not run the checks")))
        return reply

    def _new_worker(self) -> Worker:
        if self.out_of_time():
            raise SandboxTimeout("the submission used up its time limit")
        # A worker's start is never charged to the student: code that ends its process at
        # every call would otherwise have the grader start workers for free until the wall
        # clock's end. After this many, every test that needs one more is a crash at once.
        if self.workers_started >= MAX_WORKERS:
            raise SandboxCrash("the code ended its process too many times")
        self.workers_started += 1
        limits = worker_limits(
            # The kernel's own backstop, per process, should the grader's accounting fail.
            cpu_seconds=math.ceil(self.limits.timeout) + 1,
            memory_mb=self.limits.memory_mb,
            processes=self.limits.processes,
        )
        return Worker(self.server, limits, self.allowance, self.uid)

    def call(self, scenario: Scenario) -> Observation:
        """Run one scenario in the worker and return its Observation.

        Tests of several categories often ask the very same scenario (one handler, one value,
        one budget) and judge it by their own rules: it runs once per submission, and every
        later ask gets the same observation, so the tests also agree on what they saw.
        """
        key = scenario_key(scenario)
        self.asked.add(key)
        if key not in self.observed:
            self.allowance.check()
            self.observed[key] = self._run(scenario, key)
            self.scenarios[key] = scenario
        return self.observed[key]

    def take_asked(self) -> set[ScenarioKey]:
        """Return the keys of the scenarios asked since the last call of this method."""
        asked, self.asked = self.asked, set()
        return asked

    @contextlib.contextmanager
    def batch(
        self, scenarios: Sequence[Scenario], name: str | None = None
    ) -> Iterator[list[Observation]]:
        """Run many scenarios as `run_batch` does, holding their observations only meanwhile.

        What the replies cost the submission's allowance is given back when the block ends: a
        caller that judges a batch and keeps only its verdicts holds one batch at a time.
        """
        before = self.allowance.held_left
        observations = self.run_batch(scenarios, name)
        held = before - self.allowance.held_left
        try:
            yield observations
        finally:
            observations.clear()
            self.allowance.held_left += held

    def run_batch(
        self, scenarios: Sequence[Scenario], name: str | None = None
    ) -> list[Observation]:
        """Run many scenarios in one request; return their Observations, in the same order.

        The worker answers their tool calls itself from the recipes (grader/sandbox/handlers.py
        says why that is safe), so a scenario costs no round trip. No observation is cached:
        the caller keeps what it needs. A `name` says the scenarios are the same for every
        submission of the job under that name, so their request is encoded once. A scenario
        that hangs or crashes the worker ends the whole batch with the SandboxProblem, as it
        would end a test.
        """
        if not scenarios:
            return []
        self.allowance.check()
        worker = self.worker if self.worker is not None else self.start()
        reply = self._ask(worker, self._batch_request(scenarios, name))
        self._check_output(worker)
        if "observations" not in reply or len(reply["observations"]) != len(scenarios):
            self.stop()
            raise SandboxProblem(str(reply.get("error", "the worker gave no observations")))
        observations = [
            Observation(data, digested=True, allowance=self.allowance)
            for data in reply["observations"]
        ]
        forbidden = next((o.data["forbidden"] for o in observations if o.data["forbidden"]), None)
        if forbidden:
            raise SandboxForbidden("the code used " + ", ".join(forbidden))
        return observations

    def run_fresh(self, scenarios: Sequence[Scenario]) -> list[Observation]:
        """Run scenarios as `run_batch` does, in a worker of their own that loads the code anew.

        That worker is stopped afterwards and the session's own, if any, is kept as it was: what
        the code remembers from earlier tests is neither seen by these scenarios nor changed by
        them (a failing program is replayed alone to shrink it). Its time is the submission's.
        """
        kept, self.worker = self.worker, None
        try:
            return self.run_batch(scenarios)
        finally:
            self.stop()
            self.worker = kept

    def _batch_request(self, scenarios: Sequence[Scenario], name: str | None) -> Encoded:
        """Return the batch's request line, kept in `shared` under its name, if it has one."""
        key = f"{_BATCH_REQUESTS}/{name}"
        kept = self.shared.get(key) if name is not None else None
        if isinstance(kept, bytes):
            return Encoded(kept)
        runs = [
            _run_message(scenario, Toolbox(scenario["tools"]), batched=True)
            for scenario in scenarios
        ]
        line = encode_request({"op": "batch", "scenarios": runs})
        if name is not None:
            self.shared[key] = line
        return line

    def _run(self, scenario: Scenario, key: ScenarioKey) -> Observation:
        if every_tool(scenario["tools"]) is not scenario["tools"]:
            raise RecipeError("a tool that calls invoke_tool runs only in a batch (run_batch)")
        worker = self.worker if self.worker is not None else self.start()
        toolbox = Toolbox(scenario["tools"])
        reply = self._ask(worker, _run_message(scenario, toolbox), toolbox)
        self._check_output(worker)
        if "observation" not in reply:
            self.stop()
            raise SandboxProblem(str(reply.get("error", "the worker gave no observation")))
        observation = reply["observation"]
        if observation.get("forbidden"):
            raise SandboxForbidden("the code used " + ", ".join(observation["forbidden"]))
        return Observation({**observation, **toolbox.facts()}, key, allowance=self.allowance)

    def _check_output(self, worker: Worker) -> None:
        if worker.output_full():
            # Every later print would fail, so this worker can no longer be judged fairly.
            self.stop()
            raise OutputLimit("the code printed more output than the limit allows")

    def _ask(
        self,
        worker: Worker,
        message: LoadRequest | RunRequest | BatchRequest | Encoded,
        toolbox: Toolbox | None = None,
    ) -> Reply:
        # A batch has one test's time (its scenarios take a fraction of a millisecond each): the
        # caller runs the scenarios of one that times out alone, each with a test's time.
        allowance = min(self.limits.test_timeout, self.limits.timeout - self.spent)
        on_call = None if toolbox is None else _answering(toolbox, self.allowance)
        try:
            meter = worker.ready()
        except SandboxProblem:
            self.stop()
            raise
        stopwatch = Stopwatch(allowance, meter, self.wall_end)
        try:
            reply = worker.ask(message, stopwatch, on_call)
        except SandboxProblem:
            self.spent += stopwatch.finish()  # before stopping: stopping is not the student's time
            self.stop()
            raise
        self.spent += stopwatch.finish()
        return reply

    def overrun(self) -> str:
        """Say, to the student, how the submission overran what the grader spends on it, or ""."""
        if self.allowance.held_left < 0:
            return limit_notes.held(self.limits)
        if self.allowance.spent_time():
            if self.workers_started > MANY_RESTARTS:  # the grader's time went on starting them
                return limit_notes.restarts(self.workers_started, self.limits)
            return limit_notes.trusted_time(self.limits)
        return ""

    def time_words(self) -> str:
        """Say, to the student, what their code used of its time and what the limit is, or "".

        "" when the worker's clocks are not what ran out: the grader's own reading of what the
        code sent ran past the limit, which `overrun` says.
        """
        if self.spent < self.limits.timeout and time.monotonic() < self.wall_end:
            return ""
        return limit_notes.used_time(self.spent, self.limits)

    def out_of_time(self) -> bool:
        """Say whether the submission's whole time budget is spent."""
        return self.spent >= self.limits.timeout or time.monotonic() >= self.wall_end

    def take_output(self) -> str:
        """Return what the code printed since the last call of this method, capped."""
        if self.worker is not None:
            self.output.append(self.worker.read_output(self.limits.output_limit))
        text, self.output = "".join(self.output), []
        return text[: self.limits.output_limit]

    def stop(self) -> None:
        """Stop the current worker, keeping what it printed for the current test."""
        if self.worker is not None:
            self.output.append(self.worker.read_output(self.limits.output_limit))
            self.worker.close()
            self.worker = None


MAX_WORKERS = 1000  # workers one submission may start: one is enough for correct code
MANY_RESTARTS = 100  # workers started beyond which the grader's time is said to be theirs
_BATCH_REQUESTS = "batch requests"  # where `shared` keeps a named batch's request line


def _run_message(scenario: Scenario, toolbox: Toolbox, batched: bool = False) -> RunRequest:
    """Return the worker's request for one scenario; in a batch, with its tools' recipes."""
    tools = scenario["tools"]
    message: RunRequest = {
        "op": "run",
        "request": scenario["request"],
        "tools": list(tools),
        "falsy": [name for name, spec in tools.items() if spec.get("falsy")],
        "fixtures": toolbox.fixtures(),
        "repeat": scenario.get("repeat", 1),
        "mutate_value": bool(scenario.get("mutate_value")),
    }
    if "max_result_bytes" in scenario:
        message["max_result_bytes"] = scenario["max_result_bytes"]
    if "arguments_made" in scenario:  # built in the worker, not sent: a MiB each way is slow
        message["request"] = {**scenario["request"], "arguments": None}
        message["arguments_made"] = scenario["arguments_made"]
    if batched:
        message["specs"] = tools
        message["received"] = bool(scenario.get("received"))
        if scenario.get("outcome_only"):
            message["facts"] = "outcome"
        if "program" in scenario:
            message["program"] = scenario["program"]
    return message


def _answering(toolbox: Toolbox, allowance: Allowance) -> Callable[[ToolCall], ToolAnswer]:
    """Answer the worker's tool calls from `toolbox`; a call it cannot answer ends the test.

    Each call is charged to the submission's `allowance` first: a spent one ends the test.
    """

    def answer(message: ToolCall) -> ToolAnswer:
        allowance.check()
        try:
            return toolbox.answer(message)
        except (ValueError, KeyError, TypeError):
            raise SandboxProblem("the worker called a tool the test does not have") from None

    return answer
