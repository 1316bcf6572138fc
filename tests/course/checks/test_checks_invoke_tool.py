"""Step 7's check passes the reference, catches broken assemblies and names unfinished steps."""

import json

import pytest
from builders import COURSE, failure_of, with_cell
from student_mistakes import CATCHES_EXCEPTION_FIRST, COUNTS_CHARACTERS, CUTS_TO_BUDGET

from course.checks.invoke_tool import RECURSION_HINT, check_invoke_tool

pytestmark = []

STEP_4, STEP_5, STEP_7 = COURSE.steps[3], COURSE.steps[4], COURSE.steps[6]
STEP_4_ALSO = (
    "Also: `invoke_tool` calls `budget_error` from Step 4 (04-byte-budget.ipynb), which does "
    "not pass its own check yet: The budget counts UTF-8 bytes, not characters: not yet."
)
# Step 7: an `invoke_tool` that puts the exception's message beside the code.
LEAKS_THE_MESSAGE = CATCHES_EXCEPTION_FIRST.replace(
    """    except Exception:
        return make_envelope(request["id"], error="tool_failed")
""",
    """    except Exception as exc:
        return make_envelope(request["id"], error=f"{failure_code(exc)}: {exc}")
""",
)
# Step 5: a `fresh_value` that hands out the same decoded value for the same text.
SHARES_DECODED_VALUES = """\
import json
decoded = {}


def fresh_value(text):
    if text not in decoded:
        decoded[text] = json.loads(text)
    return decoded[text]
"""


def test_the_reference_passes_all_nine_cases(reference_steps):
    assert (
        check_invoke_tool(reference_steps["invoke_tool"]).summary()
        == "All 9 checks of `invoke_tool` passed."
    )


def test_counting_characters_instead_of_bytes_is_caught(reference_steps):
    def by_characters(request, tools, *, max_result_bytes=4096):
        envelope = reference_steps["invoke_tool"](request, tools, max_result_bytes=10**9)
        if (
            envelope["ok"]
            and len(json.dumps(envelope["value"], ensure_ascii=False)) > max_result_bytes
        ):
            return reference_steps["make_envelope"](request["id"], error="result_too_large")
        return envelope

    message = failure_of(check_invoke_tool, by_characters)
    assert "one byte more does not: not yet." in message
    assert "Count the bytes of the UTF-8 encoding" in message


def test_putting_the_exception_text_in_the_envelope_is_caught(reference_steps):
    def leaky(request, tools, *, max_result_bytes=4096):
        envelope = reference_steps["invoke_tool"](request, tools, max_result_bytes=max_result_bytes)
        if envelope["error"] == "tool_failed":
            try:
                tools[request["tool"]](request["arguments"])
            except Exception as exc:
                envelope["error"] = f"tool_failed: {exc!r}"
        return envelope

    message = failure_of(check_invoke_tool, leaky)
    assert message.startswith("No exception text reaches the envelope: not yet.")
    assert "PRIVATE-7f3a" in message


def test_returning_the_handler_value_without_a_fresh_decode_is_caught(reference_steps):
    def no_fresh_decode(request, tools, *, max_result_bytes=4096):
        if request["tool"] not in tools:
            return reference_steps["make_envelope"](request["id"], error="unknown_tool")
        arguments = reference_steps["copy_arguments"](request["arguments"])
        succeeded, outcome = reference_steps["call_once"](tools[request["tool"]], arguments)
        if not succeeded:
            return reference_steps["make_envelope"](
                request["id"], error=reference_steps["failure_code"](outcome)
            )
        try:
            text = reference_steps["encode_json"](outcome)
        except (TypeError, ValueError, RecursionError):
            return reference_steps["make_envelope"](request["id"], error="invalid_result")
        error = reference_steps["budget_error"](text, max_result_bytes)
        if error is not None:
            return reference_steps["make_envelope"](request["id"], error=error)
        return reference_steps["make_envelope"](
            request["id"], value=outcome
        )  # the handler's own object

    message = failure_of(check_invoke_tool, no_fresh_decode)
    assert "changed the fixture's own records" in message
    assert "fresh value" in message


def test_calling_the_handler_without_copying_the_arguments_is_caught(reference_steps):
    reference_steps["copy_arguments"] = lambda arguments: arguments
    message = failure_of(check_invoke_tool, reference_steps["invoke_tool"])
    assert "changed the request" in message


def test_a_retry_on_failure_is_caught(reference_steps):
    invoke_tool = reference_steps["invoke_tool"]

    def retrying(request, tools, *, max_result_bytes=4096):
        envelope = invoke_tool(request, tools, max_result_bytes=max_result_bytes)
        if not envelope["ok"] and envelope["error"] != "unknown_tool":
            envelope = invoke_tool(request, tools, max_result_bytes=max_result_bytes)
        return envelope

    message = failure_of(check_invoke_tool, retrying)
    assert "ran its handler 2 times" in message


def test_an_unfinished_invoke_tool_says_it_is_not_finished():
    def invoke_tool(request, tools, *, max_result_bytes=4096):
        raise NotImplementedError()

    assert failure_of(check_invoke_tool, invoke_tool).startswith(
        "`invoke_tool` is not finished yet"
    )


def test_an_unfinished_earlier_step_is_named_instead_of_invoke_tool(reference_steps):
    def failure_code(exc):
        raise NotImplementedError()

    reference_steps["failure_code"] = failure_code
    message = failure_of(check_invoke_tool, reference_steps["invoke_tool"])
    assert message.startswith("`invoke_tool` calls `failure_code` from Step 2")
    assert "02-failure-codes.ipynb" in message


def test_a_missing_earlier_step_is_named_with_where_it_comes_from(reference_steps):
    del reference_steps["make_envelope"]
    explained = []
    report = check_invoke_tool(
        reference_steps["invoke_tool"],
        explain_name=lambda n: explained.append(n) or "RUN THE SETUP",
    )
    assert not report.ok
    assert report.failure.startswith("`invoke_tool` calls `make_envelope` from Step 1")
    assert "which this kernel does not have" in report.failure
    assert report.failure.endswith("RUN THE SETUP")
    assert explained == ["make_envelope"]


def test_a_leak_in_a_not_found_envelope_is_named_as_a_leak_not_as_an_id_problem(reference_steps):
    # Ids were checked before leaks, so a leaked message in the failures of the id case was
    # reported under "Ids 0, "" and "0" come back unchanged".
    invoke_tool = reference_steps["invoke_tool"]

    def leaky(request, tools, *, max_result_bytes=4096):
        envelope = invoke_tool(request, tools, max_result_bytes=max_result_bytes)
        if envelope["error"] == "not_found":
            envelope["error"] = (
                f"not_found: no user with id {request['arguments'].get('user_id')!r}"
            )
        return envelope

    message = failure_of(check_invoke_tool, leaky)
    assert message.startswith("No exception text reaches the envelope: not yet.")
    assert "no user with id 'u-999'" in message
    assert "request id" not in message


def test_a_type_name_in_the_code_is_a_leak(reference_steps):
    invoke_tool = reference_steps["invoke_tool"]

    def names_the_class(request, tools, *, max_result_bytes=4096):
        envelope = invoke_tool(request, tools, max_result_bytes=max_result_bytes)
        if envelope["error"] == "permission_denied":
            envelope["error"] = "PermissionDeniedError"
        return envelope

    assert "'PermissionDeniedError', which comes from the exception" in failure_of(
        check_invoke_tool, names_the_class
    )


def test_letting_recursion_error_out_gets_the_recursion_hint(reference_steps):
    invoke_tool, encode_json = reference_steps["invoke_tool"], reference_steps["encode_json"]

    def no_recursion_catch(request, tools, *, max_result_bytes=4096):
        outcome = (
            tools[request["tool"]](request["arguments"]) if request["tool"] == "deep" else None
        )
        if outcome is not None:
            encode_json(outcome)  # raises RecursionError, which nothing catches
        return invoke_tool(request, tools, max_result_bytes=max_result_bytes)

    message = failure_of(check_invoke_tool, no_recursion_catch)
    assert message.startswith("A value nested too deep for JSON is invalid_result: not yet.")
    assert RECURSION_HINT in message


def test_a_wrong_code_for_a_deep_value_is_told_without_the_recursion_hint(reference_steps):
    invoke_tool = reference_steps["invoke_tool"]

    def tool_failed_when_deep(request, tools, *, max_result_bytes=4096):
        envelope = invoke_tool(request, tools, max_result_bytes=max_result_bytes)
        if request["tool"] == "deep":
            envelope["error"] = "tool_failed"
        return envelope

    message = failure_of(check_invoke_tool, tool_failed_when_deep)
    assert message.startswith("A value nested too deep for JSON is invalid_result: not yet.")
    assert "I expected error 'invalid_result'" in message
    assert RECURSION_HINT not in message


def test_cutting_the_text_to_the_budget_is_told_as_rule_4_in_invoke_tool_not_blamed_on_step_5(
    reference_steps,
):
    # Issue 42: fresh_value raised JSONDecodeError for the cut text, and the message sent the
    # student to step 5's cell, whose fresh_value is right.
    with_cell(reference_steps, STEP_7, CUTS_TO_BUDGET)
    message = failure_of(check_invoke_tool, reference_steps["invoke_tool"])
    first, happened, rules, where = message.split("\n")
    assert first == "Results outside the vocabulary or over the budget are refused: not yet."
    assert "was cut or rewritten instead of refused" in happened
    assert rules.startswith("Rule 4: a value whose JSON text is more than max_result_bytes")
    assert "result_too_large" in rules
    assert "Rule 6: a successful value is its JSON text decoded unchanged." in rules
    assert where.startswith("Fix this in `invoke_tool` itself, in 07-invoke-tool.ipynb.")
    assert "05-ownership.ipynb" not in message
    assert "fresh-value" not in message
    assert "Traceback" not in message


def test_cutting_the_text_names_step_5_first_when_fresh_value_fails_its_own_check(
    reference_steps,
):
    with_cell(reference_steps, STEP_5, SHARES_DECODED_VALUES, "fresh-value")
    with_cell(reference_steps, STEP_7, CUTS_TO_BUDGET)
    message = failure_of(check_invoke_tool, reference_steps["invoke_tool"])
    assert message.startswith(
        "`invoke_tool` calls `fresh_value` from Step 5 (05-ownership.ipynb), and that function "
        "does not pass its own check: Every call returns a brand-new value: not yet."
    )
    assert "What this check saw: Results outside the vocabulary or over the budget" in message


@pytest.mark.parametrize(
    ("source", "opening", "detail"),
    [
        (
            CATCHES_EXCEPTION_FIRST,
            "Every failure gets its code: not yet.",
            "In `invoke_tool`, `except Exception:` comes before `except InvalidInputError:`.",
        ),
        (
            LEAKS_THE_MESSAGE,
            "No exception text reaches the envelope: not yet.",
            "which comes from the exception the handler raised",
        ),
    ],
    ids=["except-order", "leak"],
)
def test_invoke_tools_own_bug_leads_and_an_unfinished_step_4_comes_after(
    reference_steps, source, opening, detail
):
    # Issue 42: whenever budget_error failed its check, the message opened with "Fix
    # `budget_error` in 04", though these cases test the codes and redaction, not the budget.
    with_cell(reference_steps, STEP_4, COUNTS_CHARACTERS)
    with_cell(reference_steps, STEP_7, source)
    message = failure_of(check_invoke_tool, reference_steps["invoke_tool"])
    assert message.split("\n")[0] == opening
    assert detail in message
    assert STEP_4_ALSO in message
    assert message.index(detail) < message.index(STEP_4_ALSO)
    assert "Fix `budget_error`" not in message


def test_a_budget_case_with_a_failing_budget_error_names_step_4_first(reference_steps):
    with_cell(reference_steps, STEP_4, COUNTS_CHARACTERS)
    message = failure_of(check_invoke_tool, reference_steps["invoke_tool"])
    assert message.startswith(
        "`invoke_tool` calls `budget_error` from Step 4 (04-byte-budget.ipynb), and that "
        "function does not pass its own check: The budget counts UTF-8 bytes, not characters"
    )
    assert "Fix `budget_error` in 04-byte-budget.ipynb" in message
    assert "What this check saw: A value of exactly max_result_bytes UTF-8 bytes passes" in message
    assert "Also:" not in message


def test_a_result_over_the_budget_rewritten_to_fit_is_told_to_be_refused(reference_steps):
    shortens = CUTS_TO_BUDGET.replace(
        "    text = text[:max_result_bytes]\n",
        '    if len(text.encode("utf-8")) > max_result_bytes:\n'
        "        text = '{\"truncated\": true}'\n",
    )
    with_cell(reference_steps, STEP_7, shortens)
    message = failure_of(check_invoke_tool, reference_steps["invoke_tool"])
    assert message.startswith(
        "Results outside the vocabulary or over the budget are refused: not yet.\n"
        "Calling export_everything: I expected ok to be False"
    )
    assert message.endswith(
        "A result over the budget is refused, never cut or shortened to fit: rule 4 gives it "
        "the code result_too_large and no value."
    )
