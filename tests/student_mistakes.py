"""Exercise cells as struggling students write them: one source for the course, kernel and
browser tests that show each mistake gets a message naming the right step and rule.
"""

# Step 4: a `budget_error` that counts characters, not UTF-8 bytes; it fails its own check.
COUNTS_CHARACTERS = (
    "def budget_error(text, max_result_bytes):\n"
    "    return 'result_too_large' if len(text) > max_result_bytes else None\n"
)
# Step 7: an `invoke_tool` that cuts a result's JSON text to the budget instead of refusing it.
CUTS_TO_BUDGET = """\
def invoke_tool(request, tools, *, max_result_bytes=4096):
    if request["tool"] not in tools:
        return make_envelope(request["id"], error="unknown_tool")
    arguments = copy_arguments(request["arguments"])
    succeeded, outcome = call_once(tools[request["tool"]], arguments)
    if not succeeded:
        return make_envelope(request["id"], error=failure_code(outcome))
    try:
        text = encode_json(outcome)
    except (TypeError, ValueError, RecursionError):
        return make_envelope(request["id"], error="invalid_result")
    text = text[:max_result_bytes]
    return make_envelope(request["id"], value=fresh_value(text))
"""
# Step 7: an `invoke_tool` whose `except Exception:` comes first, so every handler's exception
# is tool_failed; it still uses `budget_error`.
CATCHES_EXCEPTION_FIRST = """\
def invoke_tool(request, tools, *, max_result_bytes=4096):
    if request["tool"] not in tools:
        return make_envelope(request["id"], error="unknown_tool")
    arguments = copy_arguments(request["arguments"])
    try:
        outcome = tools[request["tool"]](arguments)
    except Exception:
        return make_envelope(request["id"], error="tool_failed")
    except InvalidInputError:
        return make_envelope(request["id"], error="invalid_input")
    except PermissionDeniedError:
        return make_envelope(request["id"], error="permission_denied")
    except NotFoundError:
        return make_envelope(request["id"], error="not_found")
    try:
        text = encode_json(outcome)
    except (TypeError, ValueError, RecursionError):
        return make_envelope(request["id"], error="invalid_result")
    error = budget_error(text, max_result_bytes)
    if error is not None:
        return make_envelope(request["id"], error=error)
    return make_envelope(request["id"], value=fresh_value(text))
"""
