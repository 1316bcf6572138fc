"""Step 8's check: the student's own tests, run on their invoke_tool and on broken ones.

A good test passes on a correct `invoke_tool` and fails on one that breaks the rule it is about.
The broken implementations here are built around the student's own `invoke_tool` (so the course
hands out no reference answer): each wraps it and breaks exactly one rule, the way a real bug
would. A test that passes on the broken implementation it is meant for does not catch that bug.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from course.carry.execute import Namespace
from course.checks.harness import (
    CheckCase,
    CheckReport,
    Explainer,
    print_failure,
    print_report,
    run_checks,
    safe_text,
    student_frame,
)
from course.checks.invoke_tool import check_invoke_tool
from course.contract import (
    DEFAULT_MAX_RESULT_BYTES,
    INVALID_INPUT,
    NOT_FOUND,
    PERMISSION_DENIED,
    RESULT_TOO_LARGE,
    TOOL_FAILED,
    UNKNOWN_TOOL,
)
from course.tools import Arguments, Handler

# An invoke_tool, the student's or one broken around it, and a test the student wrote.
InvokeTool = Callable[..., Any]
StudentTest = Callable[[InvokeTool], object]
Request = dict[str, Any]
Tools = dict[str, Handler]

CODES_OF_EXPECTED_FAILURES = (INVALID_INPUT, PERMISSION_DENIED, NOT_FOUND)


@dataclass(frozen=True)
class Broken:
    """A broken invoke_tool: what it does wrong, a hint for a test that misses it, its builder."""

    does: str
    hint: str
    build: Callable[[InvokeTool], InvokeTool]  # the honest invoke_tool -> a broken one


def mixes_categories(honest: InvokeTool) -> InvokeTool:
    """Every expected failure becomes tool_failed, as if the classes were never looked at."""

    def invoke_tool(
        request: Request, tools: Tools, *, max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES
    ) -> Any:
        envelope = honest(request, tools, max_result_bytes=max_result_bytes)
        if isinstance(envelope, dict) and envelope.get("error") in CODES_OF_EXPECTED_FAILURES:
            return dict(envelope, error=TOOL_FAILED)
        return envelope

    return invoke_tool


def leaks_the_message(honest: InvokeTool) -> InvokeTool:
    """The exception's text is appended to the code, the mistake redaction is about."""

    def invoke_tool(
        request: Request, tools: Tools, *, max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES
    ) -> Any:
        raised = []

        def watched(handler: Handler) -> Handler:
            def call(arguments: Arguments) -> Any:
                try:
                    return handler(arguments)
                except Exception as exc:
                    raised.append(exc)
                    raise

            return call

        watched_tools = {name: watched(handler) for name, handler in tools.items()}
        envelope = honest(request, watched_tools, max_result_bytes=max_result_bytes)
        if isinstance(envelope, dict) and envelope.get("ok") is False and raised:
            return dict(envelope, error=f"{envelope.get('error')}: {safe_text(raised[-1])}")
        return envelope

    return invoke_tool


def one_byte_short(honest: InvokeTool) -> InvokeTool:
    """A value of exactly max_result_bytes is refused: the boundary is off by one."""

    def invoke_tool(
        request: Request, tools: Tools, *, max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES
    ) -> Any:
        return honest(request, tools, max_result_bytes=max(0, max_result_bytes - 1))

    return invoke_tool


def counts_characters(honest: InvokeTool) -> InvokeTool:
    """The budget is compared with the number of characters, not UTF-8 bytes."""

    def invoke_tool(
        request: Request, tools: Tools, *, max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES
    ) -> Any:
        envelope = honest(request, tools, max_result_bytes=10**9)
        if isinstance(envelope, dict) and envelope.get("ok") is True:
            characters = len(json.dumps(envelope.get("value"), ensure_ascii=False))
            if characters > max_result_bytes:
                return {
                    "id": request["id"],
                    "ok": False,
                    "value": None,
                    "error": RESULT_TOO_LARGE,
                }
        return envelope

    return invoke_tool


def loosens_values(honest: InvokeTool) -> InvokeTool:
    """Tuples and sets become lists and keys become strings, as plain json.dumps would make them."""

    def loosened(handler: Handler) -> Handler:
        def call(arguments: Arguments) -> Any:
            result = handler(arguments)
            return json.loads(json.dumps(result, default=list))

        return call

    def invoke_tool(
        request: Request, tools: Tools, *, max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES
    ) -> Any:
        loose_tools = {name: loosened(handler) for name, handler in tools.items()}
        return honest(request, loose_tools, max_result_bytes=max_result_bytes)

    return invoke_tool


def retries_failures(honest: InvokeTool) -> InvokeTool:
    """A call that failed is tried once more, so a failing handler runs twice."""

    def invoke_tool(
        request: Request, tools: Tools, *, max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES
    ) -> Any:
        envelope = honest(request, tools, max_result_bytes=max_result_bytes)
        failed = isinstance(envelope, dict) and envelope.get("ok") is False
        if failed and envelope.get("error") != UNKNOWN_TOOL:
            return honest(request, tools, max_result_bytes=max_result_bytes)
        return envelope

    return invoke_tool


# Each test the student writes, and the broken implementations it must catch.
TESTS = {
    "test_error_categories": (
        Broken(
            "turns every expected failure into tool_failed",
            "Check the code of each expected failure (InvalidInputError, "
            "PermissionDeniedError, NotFoundError), not only of an unexpected one.",
            mixes_categories,
        ),
    ),
    "test_private_marker_stays_out": (
        Broken(
            "appends the exception's message to the failure code",
            "Raise an exception whose message holds PRIVATE_MARKER and check that no part of "
            "the envelope contains it.",
            leaks_the_message,
        ),
    ),
    "test_exact_byte_boundary": (
        Broken(
            "refuses a value of exactly max_result_bytes bytes",
            "Set the budget to exactly the value's size in UTF-8 bytes and check that it fits.",
            one_byte_short,
        ),
        Broken(
            "counts characters instead of UTF-8 bytes",
            "Use non-ASCII text (such as 東京), whose characters take several bytes each, and "
            "check that one byte less than its size is result_too_large.",
            counts_characters,
        ),
    ),
    "test_invalid_json_value": (
        Broken(
            "turns tuples and sets into lists and keys into strings, as json.dumps does",
            "Return a tuple, a set or a dict with an int key from a handler and expect "
            "invalid_result.",
            loosens_values,
        ),
    ),
    "test_called_once": (
        Broken(
            "tries a failed call a second time",
            "Wrap a handler that raises in CallCounter and check that it ran exactly once.",
            retries_failures,
        ),
    ),
}


def outcome(test: StudentTest, invoke_tool: InvokeTool) -> str | None:
    """Run one test on one invoke_tool; return None if it passed, else how it failed.

    NotImplementedError goes through: it means the test itself is not written yet.
    """
    try:
        test(invoke_tool)
    except NotImplementedError:
        raise
    except Exception as error:
        where = student_frame(error)
        place = f" ({where})" if where else ""
        said = f": {safe_text(error)}" if safe_text(error) else ""
        if isinstance(error, AssertionError):
            return f"an assertion failed{place}{said}"
        return f"it raised {type(error).__name__}{place}{said}"
    return None


def _judge(name: str, test: StudentTest, honest: InvokeTool) -> str | None:
    try:
        return _verdict(name, test, honest)
    except NotImplementedError:
        return (
            f"`{name}` is not written yet: replace `raise NotImplementedError()` in it with "
            "your test."
        )


def _verdict(name: str, test: StudentTest, honest: InvokeTool) -> str | None:
    failed = outcome(test, honest)
    if failed:
        return (
            f"On your own invoke_tool, which passes step 7's check, {failed}. A test must "
            "pass on an invoke_tool that keeps the contract: check what it expects."
        )
    for broken in TESTS[name]:
        if outcome(test, broken.build(honest)) is None:
            return (
                f"It passed on an invoke_tool that {broken.does}, so it misses that bug.\n"
                f"{broken.hint}"
            )
    return None


def test_cases(namespace: Namespace, honest: InvokeTool) -> list[CheckCase]:
    """One case per test: it passes on `honest` and fails on each broken implementation."""
    cases = []
    for name, broken in TESTS.items():
        what = " and one that ".join(b.does for b in broken)
        says = f"`{name}` passes on your invoke_tool and catches an invoke_tool that {what}"
        cases.append(CheckCase(says, _probe(name, namespace, honest)))
    return cases


def _probe(name: str, namespace: Namespace, honest: InvokeTool) -> Callable[[], str | None]:
    """Return the probe of the student's test `name`, looked up when the case runs."""

    def probe() -> str | None:
        if name not in namespace:
            return f"There is no function `{name}`: keep the names the exercise cell gives."
        return _judge(name, namespace[name], honest)

    return probe


def check_tests(namespace: Namespace, *, explain_name: Explainer | None = None) -> CheckReport:
    """Check the student's five tests against their invoke_tool and the broken ones."""
    honest = namespace.get("invoke_tool")
    if not callable(honest):
        missing = "`invoke_tool` is not loaded: run the first code cell of this notebook."
        return CheckReport("your tests", (), len(TESTS), missing)
    cases = test_cases(namespace, honest)
    ready = check_invoke_tool(honest)
    if not ready.ok:
        return CheckReport(
            "your tests",
            (),
            len(cases),
            "Your tests are judged on your own invoke_tool, and its check does not pass yet:\n"
            f"{ready.summary()}\nFinish step 7 first (07-invoke-tool.ipynb), save it, then run "
            "the first code cell of this notebook again.",
        )
    return run_checks("your tests", cases, explain_name=explain_name)


def check_my_tests(namespace: Namespace) -> None:
    """The check cell of step 8: judge the tests in the notebook's `namespace` and say how."""
    print_report(check_tests(namespace))


def try_test(test: StudentTest, namespace: Namespace) -> None:
    """Run one test on the kernel's `invoke_tool` and say whether it passed; never raise."""
    name = getattr(test, "__name__", "the test")
    invoke_tool = namespace.get("invoke_tool")
    if not callable(invoke_tool):
        print_failure("`invoke_tool` is not loaded: run the first code cell of this notebook.")
        return
    try:
        failed = outcome(test, invoke_tool)
    except NotImplementedError:
        failed = "something in it, or in your invoke_tool, is not finished yet"
    if failed:
        print_failure(f"`{name}` did not pass on your invoke_tool: {failed}.")
    else:
        print(f"✓ `{name}` passes on your invoke_tool.")
