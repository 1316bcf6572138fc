"""Mutants drawn from the generated suite's classes: the bugs only unusual inputs show.

mutmut's operators (and ours in operators.py) change one token; the bugs students write from
the contract alone change behaviour only for some inputs: an id stripped of its whitespace, a
code chosen by an exception's attribute, a retry on one kind of failure, a float cut short.
Each class mutation here is one such bug, written as an edit of one function of the reference
(`old` becomes `new`, found exactly once inside it), with the categories it breaks under
docs/CONTRACT.md's attribution rule. The generated scenarios (tooling/scenarios/) are built to
show every class; a class mutant that survives, or loses points elsewhere, is a gap.
"""

import ast
from dataclasses import dataclass

from tooling.mutation.generate import Mutant, one_line_diff


@dataclass(frozen=True)
class ClassMutation:
    """One bug of a generated class: an edit of one function and the categories it breaks."""

    name: str
    function: str
    old: str
    new: str
    categories: tuple[str, ...]


def _ids(name: str, change: str) -> ClassMutation:
    """A change made to the id of every envelope, before it is built."""
    return ClassMutation(
        name,
        "make_envelope",
        "    if error is None:\n",
        f"    {change}\n    if error is None:\n",
        ("envelope",),
    )


def _code(name: str, rule: str, categories: tuple[str, ...] = ("error_codes",)) -> ClassMutation:
    """A failure code chosen before the course's classes are asked."""
    old = "    if isinstance(exc, InvalidInputError):\n"
    return ClassMutation(name, "failure_code", old, f"    {rule}\n{old}", categories)


def _decoded(name: str, keywords: str) -> ClassMutation:
    """The accepted text decoded into a value that is not quite the one encoded."""
    return ClassMutation(
        name, "fresh_value", "json.loads(text)", f"json.loads(text, {keywords})", ("ownership",)
    )


def _retried(name: str, condition: str) -> ClassMutation:
    """A failed call retried once when `condition` holds of the exception."""
    old = "        return False, exc\n"
    new = (
        f"        if {condition}:\n"
        "            try:\n"
        "                return True, handler(arguments)\n"
        "            except Exception as again:\n"
        "                return False, again\n"
        "        return False, exc\n"
    )
    return ClassMutation(name, "call_once", old, new, ("no_retry",))


def _sized(name: str, size: str) -> ClassMutation:
    """The text's size counted another way than its UTF-8 bytes."""
    old = 'size = len(text.encode("utf-8"))'
    return ClassMutation(name, "budget_error", old, size, ("unicode_boundary",))


NFC = '__import__("unicodedata").normalize("NFC", request_id)'
CLASS_MUTATIONS = (
    _ids(
        "ids-stripped", "request_id = request_id.strip() if type(request_id) is str else request_id"
    ),
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
        "make_envelope",
        '    return {"id": request_id, "ok": False',
        "    request_id = request_id.strip() if type(request_id) is str else request_id\n"
        '    return {"id": request_id, "ok": False',
        ("envelope",),
    ),
    _code("messageless-is-tool-failed", 'if not exc.args:\n        return "tool_failed"'),
    _code(
        "errno-is-not-found",
        'if getattr(exc, "errno", None) is not None:\n        return "not_found"',
    ),
    _code(
        "retry-after-is-tool-failed",
        'if hasattr(exc, "retry_after"):\n        return "tool_failed"',
    ),
    _code(
        "code-attribute-is-the-code",
        'if type(getattr(exc, "code", None)) is str:\n        return exc.code',
        ("envelope", "error_codes"),  # its codes are any string: rule 2 too
    ),
    ClassMutation(
        "codes-by-exact-class",
        "failure_code",
        "    if isinstance(exc, InvalidInputError):\n",
        "    exact = {InvalidInputError: 'invalid_input', NotFoundError: 'not_found',"
        " PermissionDeniedError: 'permission_denied'}\n"
        "    return exact.get(type(exc), 'tool_failed')\n"
        "    if isinstance(exc, InvalidInputError):\n",
        ("error_codes",),
    ),
    ClassMutation(
        "interrupt-mixins-reraised",
        "call_once",
        "        return False, exc\n",
        "        if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):\n"
        "            raise\n        return False, exc\n",
        ("error_codes",),
    ),
    ClassMutation(
        "empty-tool-name-is-invalid-input",
        "invoke_tool",
        '    if request["tool"] not in tools:\n',
        '    if request["tool"] == "":\n'
        '        return make_envelope(request_id, error="invalid_input")\n'
        '    if request["tool"] not in tools:\n',
        ("error_codes", "no_retry"),  # the handler is called when it must not be, or not
    ),
    ClassMutation(
        "falsy-handlers-are-unknown",
        "invoke_tool",
        '    if request["tool"] not in tools:\n',
        '    if not tools.get(request["tool"]):\n',
        ("error_codes", "no_retry"),  # the handler is called when it must not be, or not
    ),
    ClassMutation(
        "tool-names-compared-casefolded",
        "invoke_tool",
        '    if request["tool"] not in tools:\n',
        "    found = {name.casefold(): name for name in tools if type(name) is str}\n"
        '    asked = request["tool"].casefold() if type(request["tool"]) is str else None\n'
        '    if request["tool"] not in tools and asked in found:\n'
        '        tools = {**tools, request["tool"]: tools[found[asked]]}\n'
        '    if request["tool"] not in tools:\n',
        ("error_codes", "no_retry"),  # the handler is called when it must not be, or not
    ),
    _retried("retries-timeouts", "isinstance(exc, TimeoutError)"),
    _retried("retries-when-retry-after", 'hasattr(exc, "retry_after")'),
    _retried("retries-when-cause-is-connection", "isinstance(exc.__cause__, ConnectionError)"),
    _retried("retries-not-found", "isinstance(exc, NotFoundError)"),
    _decoded("floats-cut-to-15-digits", 'parse_float=lambda s: float(f"{float(s):.15g}")'),
    _decoded(
        "big-ints-become-floats", "parse_int=lambda s: int(s) if abs(int(s)) <= 2**53 else float(s)"
    ),
    _decoded("negative-zero-becomes-zero", "parse_float=lambda s: float(s) or 0"),
    ClassMutation(
        "strings-nfc-normalised",
        "fresh_value",
        "json.loads(text)",
        'json.loads(__import__("unicodedata").normalize("NFC", text))',
        ("error_codes", "ownership"),  # normalised text may not decode: rule 8 too
    ),
    _sized("negative-numbers-without-sign", 'size = len(text.encode("utf-8")) - text.count("-")'),
    _sized("del-counted-as-escape", 'size = len(text.encode("utf-8")) + 5 * text.count("\\x7f")'),
    _sized(
        "size-after-nfc",
        'size = len(__import__("unicodedata").normalize("NFC", text).encode("utf-8"))',
    ),
    ClassMutation(  # nothing is encoded for a mapping, so its lone surrogates pass: rule 3 too
        "keys-counted-in-characters",
        "budget_error",
        'size = len(text.encode("utf-8"))',
        'size = len(text) if "\\":" in text else len(text.encode("utf-8"))',
        ("unicode_boundary", "vocabulary"),
    ),
    ClassMutation(
        "checks-first-item-only",
        "encode_json",
        "    check_json_value(value)\n",
        "    check_json_value(value[0] if type(value) is list and value else value)\n",
        ("vocabulary",),
    ),
    ClassMutation(
        "dotted-keys-refused",
        "encode_json",
        "    check_json_value(value)\n",
        "    check_json_value(value)\n"
        '    if type(value) is dict and any("." in key for key in value):\n'
        '        raise ValueError("dotted key")\n',
        ("vocabulary",),
    ),
    ClassMutation(
        "message-digest-in-side-key",
        "invoke_tool",
        "        return make_envelope(request_id, error=failure_code(outcome))\n",
        "        envelope = make_envelope(request_id, error=failure_code(outcome))\n"
        '        digest = __import__("hashlib").sha256(str(outcome).encode())\n'
        '        envelope["trace"] = digest.hexdigest()\n'
        "        return envelope\n",
        ("envelope", "error_codes", "redaction"),  # str() of a broken exception raises
    ),
)


def class_mutants(source: str) -> list[Mutant]:
    """Return one mutant of `source` for each class mutation, in CLASS_MUTATIONS' order.

    ValueError if a mutation's `old` text is not exactly once in its function: the reference
    changed, and the mutation must be written again for it.
    """
    spans = _function_spans(source)
    lines = source.splitlines(keepends=True)
    mutants = []
    for mutation in CLASS_MUTATIONS:
        first, last = spans[mutation.function]
        body = "".join(lines[first:last])
        if body.count(mutation.old) != 1:
            raise ValueError(
                f"{mutation.name}: {mutation.old!r} is not once in {mutation.function}"
            )
        before = "".join(lines[:first])
        mutated = before + body.replace(mutation.old, mutation.new) + "".join(lines[last:])
        line, diff = one_line_diff(source.splitlines(), mutated.splitlines())
        mutant_id = f"{mutation.function}-{mutation.name}"
        mutants.append(
            Mutant(mutant_id, mutation.function, line, diff, mutated, mutation.categories)
        )
    return mutants


def _function_spans(source: str) -> dict[str, tuple[int, int]]:
    """Return each top-level function's (first line index, end line index) in `source`."""
    tree = ast.parse(source)
    return {
        node.name: (node.lineno - 1, node.end_lineno or node.lineno)
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
    }
