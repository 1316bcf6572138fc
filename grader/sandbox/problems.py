"""Why the sandbox gave no answer: one exception class per test status it can stand for."""


class SandboxProblem(Exception):
    """The sandbox could not give an answer; `status` is the test status to record."""

    status = "error"


class SandboxTimeout(SandboxProblem):
    """The submission's code ran past its time limit."""

    status = "timeout"


class SandboxCrash(SandboxProblem):
    """The worker process died while running the submission's code."""

    status = "crash"


class SandboxForbidden(SandboxProblem):
    """The code did something the grader refuses, such as writing to the grader's channel."""

    status = "forbidden"


class SandboxMemory(SandboxProblem):
    """The submission's code needed more memory than its limit allows."""

    status = "memory"


class OutputLimit(SandboxProblem):
    """The code printed more than the output file may hold, so its prints began to fail."""

    status = "output_limit"


class LoadFailure(SandboxProblem):
    """The submission's code could not be loaded, so none of it can be tested."""

    def __init__(self, reason: str, status: str = "error") -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
