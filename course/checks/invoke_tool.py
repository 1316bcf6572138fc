"""Visible checks for step 7: `invoke_tool`, end to end over the course's fixture tools.

A compact tour of CONTRACT.md: one envelope under the original id, every failure code, no
exception text in the envelope, the exact byte boundary, ownership in and out, and one handler
call per `invoke_tool` call. Before the cases run, a short warm-up finds an earlier step that is
unfinished or not loaded, so the message names that step rather than blaming `invoke_tool`.
After a miss, the step whose rule the failing case tests is named first (course/checks/blame.py).
"""

import json
import traceback
from collections.abc import Callable
from typing import Any

from course.checks.blame import BUDGET, ENVELOPE, OWNERSHIP, Blame, blamed_failure
from course.checks.harness import (
    IN_BROWSER,
    CheckCase,
    CheckReport,
    Explainer,
    StudentFunction,
    run_checks,
    safe_text,
    show,
)
from course.checks.oracle import (
    EXPECTED_CODES,
    handler_order_hint,
    private_texts,
    raised_by,
)
from course.contract import (
    DEFAULT_MAX_RESULT_BYTES,
    INVALID_INPUT,
    INVALID_RESULT,
    NOT_FOUND,
    PERMISSION_DENIED,
    RESULT_TOO_LARGE,
    TOOL_FAILED,
    UNKNOWN_TOOL,
)
from course.manifest import Course, load_course
from course.tools import Arguments, CallCounter, FixtureTools, fixture_tools

TOO_DEEP = 100_000  # levels of nesting: far past what json.dumps can write
REFUSE_HINT = (
    "A result over the budget is refused, never cut or shortened to fit: rule 4 gives it the "
    "code result_too_large and no value."
)
RECURSION_HINT = (
    "encode_json raises RecursionError for it: catch that where you catch TypeError and "
    "ValueError, for it is invalid_result too."
)


def _request(tool: str, arguments: Arguments, request_id: object = 1) -> dict[str, Any]:
    return {"id": request_id, "tool": tool, "arguments": arguments}


def _success(invoke_tool: StudentFunction, blame: Blame) -> str | None:
    tools = fixture_tools()
    envelope = invoke_tool(_request("lookup_user", {"user_id": "u-001"}, 7), tools)
    expected = {"id": "u-001", "name": "山田 花子", "city": "東京", "role": "admin"}
    problem = blame.envelope(envelope, 7, value=expected)
    if problem:
        return problem
    envelope = invoke_tool(_request("convert_temperature", {"celsius": 100}), tools)
    return blame.envelope(envelope, 1, value={"celsius": 100, "fahrenheit": 212.0})


def _ids_kept(invoke_tool: StudentFunction, blame: Blame) -> str | None:
    tools = fixture_tools()
    user = {"id": "u-002", "name": "José Álvarez Núñez", "city": "Sevilla", "role": "editor"}
    for request_id in (0, "", "0", "req-東京"):
        success = invoke_tool(_request("lookup_user", {"user_id": "u-002"}, request_id), tools)
        failure = invoke_tool(_request("lookup_user", {"user_id": "u-999"}, request_id), tools)
        problem = blame.envelope(success, request_id, value=user) or blame.envelope(
            failure, request_id, error=NOT_FOUND
        )
        if problem:
            return problem
    return None


FAILURES = (
    ("convert_temperature", {"celsius": "hot"}, INVALID_INPUT),
    ("convert_temperature", {"celsius": -300}, INVALID_INPUT),
    ("read_document", {"as_user": "u-002", "document_id": "d-001"}, PERMISSION_DENIED),
    ("read_document", {"as_user": "u-002", "document_id": "d-999"}, NOT_FOUND),
    ("lookup_user", {"user_id": "u-999"}, NOT_FOUND),
    ("send_email", {"to": "u-001"}, UNKNOWN_TOOL),
    ("usage_stats", {"user_id": "u-001"}, TOOL_FAILED),
)


def _failure_codes(invoke_tool: StudentFunction, blame: Blame) -> str | None:
    course_codes = {code for _cls, code in EXPECTED_CODES}
    for tool, arguments, code in FAILURES:
        envelope = invoke_tool(_request(tool, arguments, 3), fixture_tools())
        problem = blame.envelope(envelope, 3, error=code)
        if problem:
            hint = handler_order_hint(invoke_tool) if code in course_codes else None
            return f"Calling {tool} with {show(arguments)}: {problem}" + (
                f"\n{hint}" if hint else ""
            )
    return None


def _nothing_leaks(invoke_tool: StudentFunction) -> str | None:
    # Checked before the codes and the ids, so a leak is named as a leak wherever it shows.
    for tool, arguments, code in FAILURES:
        if code == UNKNOWN_TOOL:
            continue  # no handler ran, so there is no exception to leak
        envelope = invoke_tool(_request(tool, arguments, 4), fixture_tools())
        text = show(envelope) if not isinstance(envelope, dict) else safe_text(envelope)
        leaked = [piece for piece in private_texts(raised_by(tool, arguments)) if piece in text]
        if leaked:
            return (
                f"Calling {tool} with {show(arguments)}, the envelope holds {leaked[0]!r}, which "
                f"comes from the exception the handler raised: {show(envelope)}.\n"
                "Only the code may reach the envelope, never the exception's text or type name."
            )
    return None


def _refused(
    invoke_tool: StudentFunction, blame: Blame, tool: str, arguments: Arguments, code: str
) -> str | None:
    """Call `tool`, whose result must be refused with `code` under the default budget."""
    envelope = invoke_tool(
        _request(tool, arguments, 5), fixture_tools(), max_result_bytes=DEFAULT_MAX_RESULT_BYTES
    )
    problem = blame.envelope(envelope, 5, error=code)
    if not problem:
        return None
    came_back = isinstance(envelope, dict) and envelope.get("ok") is True
    # A value that came back although it is too large was cut or rewritten to fit.
    hint = f"\n{REFUSE_HINT}" if code == RESULT_TOO_LARGE and came_back else ""
    return f"Calling {tool}: {problem}{hint}"


def _nested_list(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def _too_deep(invoke_tool: StudentFunction, blame: Blame) -> str | None:
    def deep(arguments: Arguments) -> list[Any]:
        return _nested_list(TOO_DEEP)

    what = (
        f"The handler returned a list nested {TOO_DEEP} levels deep, more than json.dumps can write"
    )
    try:
        envelope = invoke_tool(_request("deep", {}, 9), {"deep": deep})
    except RecursionError:
        return f"{what}, and invoke_tool let RecursionError out.\n{RECURSION_HINT}"
    problem = blame.envelope(envelope, 9, error=INVALID_RESULT)
    return f"{what}: {problem}" if problem else None


def _exact_boundary(invoke_tool: StudentFunction, blame: Blame) -> str | None:
    expected = {"id": "u-001", "name": "山田 花子", "city": "東京", "role": "admin"}
    size = len(json.dumps(expected, ensure_ascii=False, allow_nan=False).encode("utf-8"))
    request = _request("lookup_user", {"user_id": "u-001"}, 6)
    envelope = invoke_tool(request, fixture_tools(), max_result_bytes=size)
    problem = blame.envelope(envelope, 6, value=expected)
    if problem:
        return f"The value is exactly {size} UTF-8 bytes and the budget is {size}: {problem}"
    envelope = invoke_tool(request, fixture_tools(), max_result_bytes=size - 1)
    problem = blame.envelope(envelope, 6, error=RESULT_TOO_LARGE)
    if problem:
        return (
            f"The value is {size} UTF-8 bytes and the budget is {size - 1}: {problem}\n"
            "Count the bytes of the UTF-8 encoding, not the characters."
        )
    return None


def _ownership(invoke_tool: StudentFunction, blame: Blame) -> str | None:
    def grabby(arguments: Arguments) -> dict[str, Any]:
        arguments["filters"]["roles"].append("admin")
        return {"seen": arguments["filters"]["roles"]}

    request = _request("grabby", {"filters": {"roles": ["viewer"]}}, 8)
    envelope = invoke_tool(request, {"grabby": grabby})
    if request["arguments"] != {"filters": {"roles": ["viewer"]}}:
        return (
            f"A handler that edits its nested arguments changed the request to {show(request)}.\n"
            "Copy the arguments deeply before calling the handler (step 5)."
        )
    problem = blame.envelope(envelope, 8, value={"seen": ["viewer", "admin"]})
    if problem:
        return problem
    service = FixtureTools()
    envelope = invoke_tool(_request("team_roster", {"team_id": "t-100"}, 8), service.handlers())
    if not isinstance(envelope, dict) or not isinstance(envelope.get("value"), dict):
        return f"team_roster should succeed, but the envelope is {show(envelope)}."
    envelope["value"]["members"][0].append("edited")
    envelope["value"]["members"].append(["u-999", "intruder"])
    if service.teams["t-100"]["members"] != [["u-001", "lead"], ["u-002", "member"]]:
        return (
            "Editing the returned members list changed the fixture's own records to "
            f"{show(service.teams['t-100']['members'])}.\n"
            "Return a fresh value decoded from the JSON text (step 5)."
        )
    return None


def _one_call_each(invoke_tool: StudentFunction) -> str | None:
    tools = {name: CallCounter(handler) for name, handler in fixture_tools().items()}
    runs: tuple[tuple[str, Arguments], ...] = (
        ("lookup_user", {"user_id": "u-001"}),
        ("lookup_user", {"user_id": "u-999"}),
        ("usage_stats", {"user_id": "u-001"}),
        ("export_everything", {}),
    )
    for tool, arguments in runs:
        before = tools[tool].calls
        invoke_tool(_request(tool, arguments), tools)
        if tools[tool].calls - before != 1:
            return (
                f"Calling {tool} with {show(arguments)} ran its handler "
                f"{tools[tool].calls - before} times; it must run exactly once, never retried."
            )
    total = sum(counter.calls for counter in tools.values())
    invoke_tool(_request("send_email", {}), tools)
    if sum(counter.calls for counter in tools.values()) != total:
        return "A request for an unknown tool ran a handler; no handler may run for it."
    return None


def _base_exception_propagates(invoke_tool: StudentFunction) -> str | None:
    error = KeyboardInterrupt()

    def interrupted(arguments: Arguments) -> None:
        raise error

    try:
        outcome = invoke_tool(_request("slow", {}), {"slow": interrupted})
    except KeyboardInterrupt as escaped:
        if escaped is error:
            return None
        return "A KeyboardInterrupt came out, but not the very one the handler raised."
    return f"A KeyboardInterrupt from the handler was caught and became {show(outcome)}."


def cases(invoke_tool: StudentFunction, blame: Blame | None = None) -> list[CheckCase]:
    """The end-to-end cases for `invoke_tool`, in an order that names the real problem first.

    `blame` learns which categories the part of a case that runs tests, so a miss can be
    put down to the step that teaches its rule.
    """
    blame = blame or Blame()

    def part(categories: tuple[str, ...], probe: Callable[[], str | None]) -> str | None:
        return blame.asks(categories, probe)

    return [
        CheckCase(
            "A successful call returns one envelope with the value",
            lambda: part((ENVELOPE, OWNERSHIP), lambda: _success(invoke_tool, blame)),
        ),
        CheckCase(
            "No exception text reaches the envelope",
            lambda: part(("redaction",), lambda: _nothing_leaks(invoke_tool)),
        ),
        CheckCase(
            "Every failure gets its code",
            lambda: part(("error_codes",), lambda: _failure_codes(invoke_tool, blame)),
        ),
        CheckCase(
            'Ids 0, "" and "0" come back unchanged',
            lambda: part((ENVELOPE,), lambda: _ids_kept(invoke_tool, blame)),
        ),
        CheckCase(
            "Results outside the vocabulary or over the budget are refused",
            lambda: (
                part(
                    ("vocabulary",),
                    lambda: _refused(
                        invoke_tool, blame, "user_tags", {"user_id": "u-001"}, INVALID_RESULT
                    ),
                )
                or part(
                    (BUDGET,),
                    lambda: _refused(invoke_tool, blame, "export_everything", {}, RESULT_TOO_LARGE),
                )
            ),
        ),
        *(
            []
            if IN_BROWSER
            else [
                CheckCase(
                    "A value nested too deep for JSON is invalid_result",
                    lambda: part(("vocabulary",), lambda: _too_deep(invoke_tool, blame)),
                )
            ]
        ),
        CheckCase(
            "A value of exactly max_result_bytes UTF-8 bytes passes; one byte more does not",
            lambda: part((BUDGET,), lambda: _exact_boundary(invoke_tool, blame)),
        ),
        CheckCase(
            "The handler cannot change the request, and the value is yours to edit",
            lambda: part((OWNERSHIP,), lambda: _ownership(invoke_tool, blame)),
        ),
        CheckCase(
            "Each call runs the handler once, and none for an unknown tool",
            lambda: (
                part(("no_retry",), lambda: _one_call_each(invoke_tool))
                # Rule 8: a BaseException that is not an Exception passes through unchanged.
                or part(("error_codes",), lambda: _base_exception_propagates(invoke_tool))
            ),
        ),
    ]


def earlier_step_message(
    error: BaseException,
    function_name: str,
    course: Course | None = None,
    explain_name: Explainer | None = None,
) -> str | None:
    """Name the earlier step behind an unfinished or missing function, or return None.

    `invoke_tool` calls the functions of steps 1 to 6; when one of them is what raised
    NotImplementedError or NameError, the student has to finish that step, not this one.
    """
    steps = (course or load_course()).steps
    if isinstance(error, NameError):
        culprit = getattr(error, "name", None)
    else:
        frames = traceback.extract_tb(error.__traceback__)
        culprit = frames[-1].name if frames else None
    step = next((s for s in steps if culprit in s.defines and culprit != function_name), None)
    if step is None or culprit is None:
        return None
    calls = f"`{function_name}` calls `{culprit}` from {step.label}"
    if isinstance(error, NameError):
        explained = explain_name(culprit) if explain_name else ""
        return f"{calls}, which this kernel does not have.\n{explained}".rstrip()
    return (
        f"{calls}, which is not finished yet: it still raises NotImplementedError.\n"
        f"Finish and save {step.notebook}, then run the first code cell of this notebook "
        "again (it loads your earlier work and says what it could not load)."
    )


def warm_up(
    invoke_tool: StudentFunction,
    function_name: str = "invoke_tool",
    explain_name: Explainer | None = None,
) -> str | None:
    """Run each path of `invoke_tool` once; return a message if an earlier step is unfinished."""
    requests: tuple[tuple[str, Arguments, int], ...] = (
        ("send_email", {}, DEFAULT_MAX_RESULT_BYTES),
        ("lookup_user", {"user_id": "u-001"}, DEFAULT_MAX_RESULT_BYTES),
        ("lookup_user", {"user_id": "u-999"}, DEFAULT_MAX_RESULT_BYTES),
        ("user_tags", {"user_id": "u-001"}, DEFAULT_MAX_RESULT_BYTES),
        ("lookup_user", {"user_id": "u-001"}, 1),
    )
    for tool, arguments, budget in requests:
        try:
            invoke_tool(_request(tool, arguments), fixture_tools(), max_result_bytes=budget)
        except (NotImplementedError, NameError) as error:
            # None for invoke_tool's own: the cases report it with their context.
            return earlier_step_message(error, function_name, explain_name=explain_name)
        except Exception:
            return None  # a bug of invoke_tool's own: the cases report it with its context
    return None


def check_invoke_tool(
    invoke_tool: StudentFunction, *, explain_name: Explainer | None = None
) -> CheckReport:
    """Check the student's `invoke_tool` end to end; return the CheckReport.

    A miss is put down to the step whose rule the failing case tests: an earlier step whose
    function fails its own check leads only when it teaches that rule, and is named after the
    real cause otherwise (course/checks/blame.py).
    """
    message = warm_up(invoke_tool, explain_name=explain_name)
    blame = Blame()
    all_cases = cases(invoke_tool, blame)
    if message:
        return CheckReport("invoke_tool", (), len(all_cases), message)
    report = run_checks("invoke_tool", all_cases, explain_name=explain_name)
    if report.failure is None:
        return report
    says = all_cases[len(report.passed)].says
    failure = blamed_failure(says, report.failure, blame, invoke_tool, load_course())
    return CheckReport("invoke_tool", report.passed, report.total, failure, report.printed)
