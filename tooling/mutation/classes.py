"""Mutants drawn from the generated suite's classes: the bugs only unusual inputs show.

mutmut's operators (and ours in operators.py) change one token; the bugs students write from
the contract alone change behaviour only for some inputs: an id stripped of its whitespace, a
code chosen by an exception's attribute, a retry on one kind of failure, a float cut short.
Each class mutation here is one such bug with the categories it breaks under docs/CONTRACT.md's
attribution rule, written as an edit of one function of each reference solution (edits.py): the
reference and, where its shape has a place for the bug, the independently written second one.
The generated scenarios (tooling/scenarios/) are built to show every class; a class mutant of
either reference that survives, or loses points elsewhere, is a gap.
"""

from tooling.mutation.anchors import (
    FIRST_CODES,
    FIRST_FAILED,
    ID_READ,
    SECOND_FAILED,
    code_rule,
)
from tooling.mutation.edits import FIRST, ClassMutation, Edit, apply_mutations
from tooling.mutation.generate import Mutant
from tooling.mutation.odd import ODD_MUTATIONS
from tooling.mutation.programs import PROGRAM_MUTATIONS
from tooling.mutation.sizes import SIZE_MUTATIONS

STRIP = "request_id = request_id.strip() if type(request_id) is str else request_id"
# The four bugs whose returned value is not quite the one encoded have no place in the second
# reference: its value is the copy its one walk made, and json.dumps of that same copy is the
# text it measures, so changing the value changes the text and its size too (rule 4 as well:
# another bug). The first reference decodes its text again, so the value alone can change.
NO_DECODING = None
# Its walk checks and copies in one pass: a member it did not check would have to be copied some
# other way, which is a second bug (rule 6), so checking the first item only has no place either.
NO_SEPARATE_CHECK = None


def _ids(name: str, change: str) -> ClassMutation:
    """A change made to the id of every envelope, before it is built."""
    return ClassMutation(
        name,
        ("envelope",),
        Edit("make_envelope", "    if error is None:\n", f"    {change}\n    if error is None:\n"),
        # The second reference reads the id once, and every envelope echoes that object.
        Edit("invoke_tool", ID_READ, f"{ID_READ}    {change}\n"),
    )


def _tool(name: str, first: str, second: str) -> ClassMutation:
    """A tool looked up otherwise than by its exact name: code `first` or `second` goes first."""
    first_check = '    if request["tool"] not in tools:\n'
    second_check = "    if name not in tools:\n"
    return ClassMutation(
        name,
        ("error_codes", "no_retry"),  # the handler is called when it must not be, or not
        Edit("invoke_tool", first_check, first.format(check=first_check)),
        Edit("invoke_tool", second_check, second.format(check=second_check)),
    )


def _retried(
    name: str, condition: str, categories: tuple[str, ...] = ("no_retry",)
) -> ClassMutation:
    """A failed call retried once when `condition` holds of the exception."""
    first = (
        f"        if {condition}:\n"
        "            try:\n"
        "                return True, handler(arguments)\n"
        "            except Exception as again:\n"
        "                return False, again\n"
    )
    second = (
        f"        if {condition}:\n"
        "            try:\n"
        "                result = handler(arguments)\n"
        "            except Exception as again:\n"
        "                return failure(request_id, exception_code(again))\n"
        "            return result_envelope(request_id, result, max_result_bytes)\n"
    )
    return ClassMutation(
        name,
        categories,
        Edit("call_once", FIRST_FAILED, first + FIRST_FAILED),
        Edit("invoke_tool", SECOND_FAILED, second + SECOND_FAILED),
    )


def _decoded(name: str, keywords: str) -> ClassMutation:
    """The accepted text decoded into a value that is not quite the one encoded."""
    return ClassMutation(
        name,
        ("ownership",),
        Edit("fresh_value", "json.loads(text)", f"json.loads(text, {keywords})"),
        NO_DECODING,
    )


def _sized(
    name: str, size: str, categories: tuple[str, ...] = ("unicode_boundary",)
) -> ClassMutation:
    """The text's size counted another way than its UTF-8 bytes; `size` names the text {text}."""
    return ClassMutation(
        name,
        categories,
        Edit(
            "budget_error",
            'size = len(text.encode("utf-8"))',
            "size = " + size.format(text="text"),
        ),
        Edit(
            "result_envelope",
            'size = len(encoded.encode("utf-8"))',
            "size = " + size.format(text="encoded"),
        ),
    )


NFC = '__import__("unicodedata").normalize("NFC", request_id)'
CLASS_MUTATIONS = (
    _ids("ids-stripped", STRIP),
    _ids("ids-nfc", f"request_id = {NFC} if type(request_id) is str else request_id"),
    _ids(
        "ids-nfkc",
        f"request_id = {NFC.replace('NFC', 'NFKC')} if type(request_id) is str else request_id",
    ),
    _ids(
        "big-int-ids-through-float",
        "request_id = int(float(request_id)) if type(request_id) is int else request_id",
    ),
    _ids(
        "negative-ids-made-positive",
        "request_id = abs(request_id) if type(request_id) is int else request_id",
    ),
    ClassMutation(
        "failure-ids-stripped",
        ("envelope",),
        Edit(
            "make_envelope",
            '    return {"id": request_id, "ok": False',
            f'    {STRIP}\n    return {{"id": request_id, "ok": False',
        ),
        Edit(
            "failure",
            '    return {"id": request_id, "ok": False',
            f'    {STRIP}\n    return {{"id": request_id, "ok": False',
        ),
    ),
    # A code read from what an exception carries breaks rule 3 too: its twins, of one class,
    # get different envelopes (CONTRACT.md's attribution rule).
    code_rule(
        "messageless-is-tool-failed",
        'if not exc.args:\n        return "tool_failed"',
        ("error_codes", "redaction"),
    ),
    code_rule(
        "errno-is-not-found",
        'if getattr(exc, "errno", None) is not None:\n        return "not_found"',
        ("error_codes", "redaction"),
    ),
    code_rule(
        "retry-after-is-tool-failed",
        'if hasattr(exc, "retry_after"):\n        return "tool_failed"',
        ("error_codes", "redaction"),
    ),
    code_rule(
        "code-attribute-is-the-code",
        'if type(getattr(exc, "code", None)) is str:\n        return exc.code',
        ("envelope", "error_codes", "redaction"),  # its codes are any string: rule 2 too
    ),
    ClassMutation(
        "codes-by-exact-class",
        ("error_codes",),
        Edit(
            "failure_code",
            FIRST_CODES,
            "    exact = {InvalidInputError: 'invalid_input', NotFoundError: 'not_found',"
            " PermissionDeniedError: 'permission_denied'}\n"
            f"    return exact.get(type(exc), 'tool_failed')\n{FIRST_CODES}",
        ),
        Edit(
            "exception_code",
            "        if issubclass(kind, course_class):\n",
            "        if kind is course_class:\n",
        ),
    ),
    ClassMutation(
        "interrupt-mixins-reraised",
        ("error_codes",),
        Edit(
            "call_once",
            FIRST_FAILED,
            "        if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):\n"
            f"            raise\n{FIRST_FAILED}",
        ),
        Edit(
            "invoke_tool",
            SECOND_FAILED,
            "        if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):\n"
            f"            raise\n{SECOND_FAILED}",
        ),
    ),
    _tool(
        "empty-tool-name-is-invalid-input",
        '    if request["tool"] == "":\n'
        '        return make_envelope(request_id, error="invalid_input")\n{check}',
        '    if name == "":\n        return failure(request_id, "invalid_input")\n{check}',
    ),
    _tool(
        "falsy-handlers-are-unknown",
        '    if not tools.get(request["tool"]):\n',
        "    if not tools.get(name):\n",
    ),
    _tool(
        "tool-names-compared-casefolded",
        "    found = {{name.casefold(): name for name in tools if type(name) is str}}\n"
        '    asked = request["tool"].casefold() if type(request["tool"]) is str else None\n'
        '    if request["tool"] not in tools and asked in found:\n'
        '        tools = {{**tools, request["tool"]: tools[found[asked]]}}\n{check}',
        "    found = {{key.casefold(): key for key in tools if type(key) is str}}\n"
        "    asked = name.casefold() if type(name) is str else None\n"
        "    if name not in tools and asked in found:\n"
        "        tools = {{**tools, name: tools[found[asked]]}}\n{check}",
    ),
    _retried("retries-timeouts", "isinstance(exc, TimeoutError)"),
    # hasattr lets a RuntimeError from an exception's own attribute lookup through: rule 8 too.
    _retried(
        "retries-when-retry-after", 'hasattr(exc, "retry_after")', ("error_codes", "no_retry")
    ),
    _retried("retries-when-cause-is-connection", "isinstance(exc.__cause__, ConnectionError)"),
    _retried("retries-not-found", "isinstance(exc, NotFoundError)"),
    _decoded("floats-cut-to-15-digits", 'parse_float=lambda s: float(f"{float(s):.15g}")'),
    _decoded(
        "big-ints-become-floats", "parse_int=lambda s: int(s) if abs(int(s)) <= 2**53 else float(s)"
    ),
    _decoded("negative-zero-becomes-zero", "parse_float=lambda s: float(s) or 0"),
    ClassMutation(
        "strings-nfc-normalised",
        ("error_codes", "ownership"),  # normalised text may not decode: rule 8 too
        Edit(
            "fresh_value",
            "json.loads(text)",
            'json.loads(__import__("unicodedata").normalize("NFC", text))',
        ),
        NO_DECODING,
    ),
    _sized("negative-numbers-without-sign", 'len({text}.encode("utf-8")) - {text}.count("-")'),
    _sized("del-counted-as-escape", 'len({text}.encode("utf-8")) + 5 * {text}.count("\\x7f")'),
    _sized(
        "size-after-nfc", 'len(__import__("unicodedata").normalize("NFC", {text}).encode("utf-8"))'
    ),
    _sized(  # nothing is encoded for a mapping, so its lone surrogates pass: rule 3 too
        "keys-counted-in-characters",
        'len({text}) if "\\":" in {text} else len({text}.encode("utf-8"))',
        ("unicode_boundary", "vocabulary"),
    ),
    ClassMutation(
        "checks-first-item-only",
        ("vocabulary",),
        Edit(
            "encode_json",
            "    check_json_value(value)\n",
            "    check_json_value(value[0] if type(value) is list and value else value)\n",
        ),
        NO_SEPARATE_CHECK,
    ),
    ClassMutation(
        "dotted-keys-refused",
        ("vocabulary",),
        Edit(
            "encode_json",
            "    check_json_value(value)\n",
            "    check_json_value(value)\n"
            '    if type(value) is dict and any("." in key for key in value):\n'
            '        raise ValueError("dotted key")\n',
        ),
        Edit(
            "result_envelope",
            "        value = vocabulary_copy(result)\n",
            "        value = vocabulary_copy(result)\n"
            '        if type(value) is dict and any("." in key for key in value):\n'
            '            raise OutsideVocabulary("dotted key")\n',
        ),
    ),
    ClassMutation(
        "message-digest-in-side-key",
        ("envelope", "error_codes", "redaction"),  # str() of a broken exception raises
        Edit(
            "invoke_tool",
            "        return make_envelope(request_id, error=failure_code(outcome))\n",
            "        envelope = make_envelope(request_id, error=failure_code(outcome))\n"
            '        digest = __import__("hashlib").sha256(str(outcome).encode())\n'
            '        envelope["trace"] = digest.hexdigest()\n'
            "        return envelope\n",
        ),
        Edit(
            "invoke_tool",
            SECOND_FAILED,
            "        envelope = failure(request_id, exception_code(exc))\n"
            '        digest = __import__("hashlib").sha256(str(exc).encode())\n'
            '        envelope["trace"] = digest.hexdigest()\n'
            "        return envelope\n",
        ),
    ),
    *ODD_MUTATIONS,
    *PROGRAM_MUTATIONS,
    *SIZE_MUTATIONS,
)


def class_mutants(source: str, reference: str = FIRST) -> list[Mutant]:
    """Return one mutant of `source` for each class mutation with an edit of `reference`.

    `reference` is the file stem of the solution `source` holds (edits.FIRST or edits.SECOND).
    ValueError if an edit's `old` text is not exactly once in its function.
    """
    return apply_mutations(source, CLASS_MUTATIONS, reference)
