"""Bug classes shown by odd exceptions and odd results (tooling/scenarios/pinned.py's scenarios).

An exception that is falsy, whose unknown attributes raise, or that cannot be hashed; an
exception group, a BaseExceptionGroup holding a KeyboardInterrupt, a course error down a chain
or in another exception's args; a handler that returns an exception, a code's text or an
envelope-shaped dict. Each bug is written for both references, with the categories it breaks
under docs/CONTRACT.md's attribution rule.
"""

from tooling.mutation.anchors import (
    FIRST_CAUGHT,
    FIRST_FAILED,
    FIRST_VALUE,
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


def _on_failure(name: str, categories: tuple[str, ...], first: str, second: str) -> ClassMutation:
    """Lines run on a handler's exception before it is reported (each reference's own)."""
    return ClassMutation(
        name,
        categories,
        Edit("call_once", FIRST_FAILED, first + FIRST_FAILED),
        Edit("invoke_tool", SECOND_FAILED, second + SECOND_FAILED),
    )


ODD_MUTATIONS = (
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
)
