"""Bug classes shown by odd exceptions, odd results and nesting (tooling/scenarios/pinned.py).

An exception that is falsy, whose unknown attributes raise, or that cannot be hashed; an
exception group, a BaseExceptionGroup holding a KeyboardInterrupt, a course error down a chain
or in another exception's args; a handler that returns an exception, a code's text or an
envelope-shaped dict; a handler that calls invoke_tool itself, which overwrites module state
or meets a re-entrancy guard. Each bug is written for both references, with the categories it
breaks under docs/CONTRACT.md's attribution rule.
"""

import textwrap

from tooling.mutation.anchors import (
    FIRST_CALL,
    FIRST_CAUGHT,
    FIRST_FAILED,
    FIRST_VALUE,
    SECOND_CALL,
    SECOND_FAILED,
    SECOND_VALUE,
    code_rule,
)
from tooling.mutation.edits import ClassMutation, Edit

CODES = (
    '("unknown_tool", "invalid_input", "permission_denied", "not_found", "tool_failed",'
    ' "invalid_result", "result_too_large")'
)
ENVELOPE_KEYS = '{"id", "ok", "value", "error"}'
# A code read from anything but the class: a wrong code, and twins (one class, different in
# something else) with different envelopes, rule 3's fault too.
TWINS = ("error_codes", "redaction")


def _before_value(
    name: str, categories: tuple[str, ...], condition: str, first: str, second: str
) -> ClassMutation:
    """A returned value judged by `condition` before the vocabulary: it becomes that envelope.

    `condition` names the value {value}; `first` and `second` are each reference's return.
    """
    first_test = condition.replace("{value}", "outcome")
    second_test = condition.replace("{value}", "result")
    return ClassMutation(
        name,
        categories,
        Edit(
            "invoke_tool",
            FIRST_VALUE,
            f"    if {first_test}:\n        return {first}\n{FIRST_VALUE}",
        ),
        Edit(
            "result_envelope",
            SECOND_VALUE,
            f"    if {second_test}:\n        return {second}\n{SECOND_VALUE}",
        ),
    )


def _converted(name: str, condition: str, conversion: str) -> ClassMutation:
    """A returned value that `condition` holds of turned into JSON by `conversion`: rule 3 alone.

    Both name the value {value}; the converted value is then judged as the handler's own.
    """
    edits = []
    for function, anchor, value in (
        ("invoke_tool", FIRST_VALUE, "outcome"),
        ("result_envelope", SECOND_VALUE, "result"),
    ):
        test, made = (text.replace("{value}", value) for text in (condition, conversion))
        edits.append(Edit(function, anchor, f"    if {test}:\n        {value} = {made}\n{anchor}"))
    return ClassMutation(name, ("vocabulary",), *edits)


def _on_failure(name: str, categories: tuple[str, ...], first: str, second: str) -> ClassMutation:
    """Lines run on a handler's exception before it is reported (each reference's own)."""
    return ClassMutation(
        name,
        categories,
        Edit("call_once", FIRST_FAILED, first + FIRST_FAILED),
        Edit("invoke_tool", SECOND_FAILED, second + SECOND_FAILED),
    )


def _indented(lines: str, spaces: int) -> str:
    return textwrap.indent(lines, " " * spaces)


def _around_call(name: str, categories: tuple[str, ...], before: str, after: str) -> ClassMutation:
    """Module state written just before each reference calls the handler, read just after.

    A handler that calls invoke_tool itself (the nested scenarios) overwrites it in between.
    """
    first = before + FIRST_CALL.strip() + "\n" + after
    second = before + SECOND_CALL.strip() + "\n" + after
    return ClassMutation(
        name,
        categories,
        Edit("invoke_tool", FIRST_CALL, _indented(first, 4)),
        Edit("invoke_tool", SECOND_CALL, _indented(second, 8)),
    )


def _refusing() -> ClassMutation:
    """A re-entrancy guard: a call made while another one runs raises (rule 8, error_codes).

    The outer call's handler then raises, and the outer call answers tool_failed, as it should.
    The second reference calls its handler in a try whose `except Exception` would answer the
    refusal with tool_failed instead: its guard stands before that try.
    """
    guard = 'if globals().get("BUSY"):\n    raise RuntimeError("invoke_tool is already running")\n'

    def busy(call: str) -> str:
        done = '    globals()["BUSY"] = False\n'
        return f'globals()["BUSY"] = True\ntry:\n    {call.strip()}\nfinally:\n{done}'

    second = _indented(guard, 4) + "    try:\n" + _indented(busy(SECOND_CALL), 8)
    return ClassMutation(
        "refuses-nested-calls",
        ("error_codes",),
        Edit("invoke_tool", FIRST_CALL, _indented(guard + busy(FIRST_CALL), 4)),
        Edit("invoke_tool", "    try:\n" + SECOND_CALL, second),
    )


DATACLASSES = '__import__("dataclasses")'
ODD_MUTATIONS = (
    _converted(  # a dataclass is an object, whatever asdict makes of it
        "dataclass-results-converted",
        f"{DATACLASSES}.is_dataclass({{value}}) and not isinstance({{value}}, type)",
        f"{DATACLASSES}.asdict({{value}})",
    ),
    _converted(  # a generator is no list, and consuming it runs the tool's code
        "generator-results-listed",
        'isinstance({value}, __import__("types").GeneratorType)',
        "list({value})",
    ),
    _on_failure(  # a falsy exception is still raised: the code table (error_codes)
        "falsy-exception-is-success",
        ("error_codes",),
        "        if not exc:\n            return True, None\n",
        "        if not exc:\n"
        "            return result_envelope(request_id, None, max_result_bytes)\n",
    ),
    _on_failure(  # set() hashes the instance: invoke_tool raises (rule 8)
        "exception-noted-in-a-set",
        ("error_codes",),
        "        seen = {exc}\n",
        "        seen = {exc}\n",
    ),
    code_rule(  # the lookup's RuntimeError is no AttributeError: invoke_tool raises (rule 8)
        "getattr-default-on-exception",
        'if getattr(exc, "transient", False):\n        return "tool_failed"',
    ),
    code_rule(
        "code-from-chained-cause",
        "if exc.__cause__ is not None:\n        exc = exc.__cause__",
        TWINS,
    ),
    code_rule(
        "code-from-exception-in-args",
        "exc = next((a for a in exc.args if isinstance(a, BaseException)), exc)",
        TWINS,
    ),
    code_rule(
        "exception-group-unwrapped-to-first-member",
        "if isinstance(exc, BaseExceptionGroup):\n        exc = exc.exceptions[0]",
        TWINS,
    ),
    code_rule(
        "code-from-message",
        'if "not found" in str(exc).lower():\n        return "not_found"',
        TWINS,
    ),
    code_rule(
        "code-from-errno-attribute",
        'if getattr(exc, "errno", None) == 13:\n        return "permission_denied"',
        TWINS,
    ),
    code_rule(
        "code-from-traceback-depth",
        "if len(__import__('traceback').extract_tb(exc.__traceback__)) > 5:\n"
        '        return "not_found"',
        TWINS,
    ),
    code_rule(  # an exception whose str() raises escapes: its code is rule 3's, and rule 8's
        "text-made-before-the-code",
        "str(exc)",
        TWINS,
    ),
    ClassMutation(  # a group holding a KeyboardInterrupt is no Exception: it must propagate
        "interrupt-groups-caught",
        ("error_codes",),
        Edit("call_once", FIRST_CAUGHT, "    except (Exception, BaseExceptionGroup) as exc:\n"),
        Edit("invoke_tool", FIRST_CAUGHT, "    except (Exception, BaseExceptionGroup) as exc:\n"),
    ),
    _before_value(  # a returned value has succeeded, whatever it spells: each code it gives
        # breaks that code's row, the exception codes' (error_codes), invalid_result's
        # (vocabulary) and result_too_large's (rule 4, unicode_boundary)
        "code-string-result-is-failure",
        ("error_codes", "vocabulary", "unicode_boundary"),
        f"type({{value}}) is str and {{value}} in {CODES}",
        "make_envelope(request_id, error=outcome)",
        "failure(request_id, result)",
    ),
    _before_value(  # its id is not the request's (rule 1), its code was not raised (the code
        # table), its value is not json.loads(encoded) (rule 6)
        "envelope-shaped-result-passed-through",
        ("envelope", "error_codes", "ownership"),
        f"type({{value}}) is dict and {{value}}.keys() == {ENVELOPE_KEYS}",
        "outcome",
        "result",
    ),
    _before_value(  # a returned exception is a value outside the vocabulary: invalid_result
        "returned-exception-mapped-to-code",
        ("vocabulary",),
        "isinstance({value}, BaseException)",
        "make_envelope(request_id, error=failure_code(outcome))",
        "failure(request_id, exception_code(result))",
    ),
    _around_call(  # the outer envelope carries the inner request's id (rule 1)
        "current-request-in-module-state",
        ("envelope",),
        'globals()["CURRENT_REQUEST"] = request\n',
        'request_id = globals()["CURRENT_REQUEST"]["id"]\n',
    ),
    _around_call(  # the outer value is measured against the inner call's budget (rule 4)
        "budget-in-module-state",
        ("unicode_boundary",),
        'globals()["BUDGET"] = max_result_bytes\n',
        'max_result_bytes = globals()["BUDGET"]\n',
    ),
    _refusing(),
)
