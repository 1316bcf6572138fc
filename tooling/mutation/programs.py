"""Bug classes that only a program shows: state a submission keeps from one call to the next.

Each call of a program (tooling/scenarios/programs.py) goes into one loaded submission, as a real
agent loop makes them: a breaker that stops calling a tool after failures, a mutable default
handed to the handler for empty arguments, a failure envelope kept and given back, a tool
trusted after one good value. Each bug is written for both references where its shape has a
place for it, with the categories it breaks under docs/CONTRACT.md's attribution rule.
"""

from tooling.mutation.anchors import FIRST_CALL, FIRST_COPY, FIRST_VALUE, ID_READ, SECOND_COPY
from tooling.mutation.edits import ClassMutation, Edit

# Where the second calls and reports its handler.
SECOND_TRY = (
    "    try:\n"
    "        result = handler(arguments)\n"
    "    except Exception as exc:\n"
    "        return failure(request_id, exception_code(exc))\n"
)
EMPTY = 'globals().setdefault("EMPTY", {})'  # a default made once, as `def f(x={})` makes it
KEPT_BUDGET = Edit(  # both references read the id first in invoke_tool
    "invoke_tool",
    ID_READ,
    ID_READ + '    max_result_bytes = globals().setdefault("BUDGET", max_result_bytes)\n',
)


def _breaker() -> ClassMutation:
    """After three failures in a row a tool is answered tool_failed unrun: rule 7 alone."""
    first = (
        '    failed = globals().setdefault("FAILED", {})\n'
        '    if failed.get(request["tool"], 0) >= 3:\n'
        '        return make_envelope(request_id, error="tool_failed")\n'
        + FIRST_CALL
        + '    failed[request["tool"]] = 0 if succeeded else failed.get(request["tool"], 0) + 1\n'
    )
    second = (
        '    failed = globals().setdefault("FAILED", {})\n'
        "    if failed.get(name, 0) >= 3:\n"
        '        return failure(request_id, "tool_failed")\n'
        "    try:\n"
        "        result = handler(arguments)\n"
        "    except Exception as exc:\n"
        "        failed[name] = failed.get(name, 0) + 1\n"
        "        return failure(request_id, exception_code(exc))\n"
        "    failed[name] = 0\n"
    )
    return ClassMutation(
        "breaker-after-three-failures",
        ("no_retry",),
        Edit("invoke_tool", FIRST_CALL, first),
        Edit("invoke_tool", SECOND_TRY, second),
    )


def _kept_failures(first_function: str, second_function: str) -> ClassMutation:
    """A failure envelope kept by id and code and given back: rule 9 (every envelope new)."""
    made = '{"id": request_id, "ok": False, "value": None, "error": %s}'
    kept = 'globals().setdefault("KEPT", {}).setdefault((type(request_id), request_id, %s), %s)'
    return ClassMutation(
        "failure-envelope-kept-by-id",
        ("envelope",),
        Edit(
            first_function,
            f"    return {made % 'error'}\n",
            f"    return {kept % ('error', made % 'error')}\n",
        ),
        Edit(
            second_function,
            f"    return {made % 'code'}\n",
            f"    return {kept % ('code', made % 'code')}\n",
        ),
    )


PROGRAM_MUTATIONS = (
    _breaker(),
    ClassMutation(  # the first call's budget measures every later one: rule 4 alone
        "budget-kept-from-first-call",
        ("unicode_boundary",),
        KEPT_BUDGET,
        KEPT_BUDGET,
    ),
    ClassMutation(  # a handler that adds to the shared default leaves it for the next call
        "shared-default-for-empty-arguments",
        ("ownership",),
        Edit(
            "invoke_tool",
            FIRST_COPY,
            FIRST_COPY.rstrip("\n") + f' if request["arguments"] else {EMPTY}\n',
        ),
        Edit(
            "invoke_tool",
            SECOND_COPY,
            SECOND_COPY.rstrip("\n") + f' if request["arguments"] else {EMPTY}\n',
        ),
    ),
    _kept_failures("make_envelope", "failure"),
    ClassMutation(  # json.dumps alone for a tool that gave a good value once: tuples pass
        "trusts-tool-after-one-good-value",
        ("vocabulary",),
        Edit(
            "invoke_tool",
            FIRST_VALUE,
            "    try:\n"
            '        if request["tool"] in globals().setdefault("VETTED", set()):\n'
            "            text = json.dumps(outcome, ensure_ascii=False, allow_nan=False)\n"
            "        else:\n"
            "            text = encode_json(outcome)\n"
            '        globals()["VETTED"].add(request["tool"])\n',
        ),
        Edit(  # the second judges a value in result_envelope: what a vetted tool gives is
            # first made JSON-ready by json.dumps alone, so it passes the check after that
            "invoke_tool",
            "    return result_envelope(request_id, result, max_result_bytes)\n",
            '    if name in globals().setdefault("VETTED", set()):\n'
            "        try:\n"
            "            text = json.dumps(result, ensure_ascii=False, allow_nan=False)\n"
            "            result = json.loads(text)\n"
            "        except (TypeError, ValueError, RecursionError):\n"
            "            pass\n"
            "    envelope = result_envelope(request_id, result, max_result_bytes)\n"
            '    if envelope["ok"]:\n'
            '        globals()["VETTED"].add(name)\n'
            "    return envelope\n",
        ),
    ),
)
