"""Where each reference reads the id, decides a code, reports a handler's exception, judges a value.

The class mutations (classes.py, odd.py) edit the references at these exact texts; should a
reference change one, apply_mutations says which mutation no longer fits.
"""

from tooling.mutation.edits import ClassMutation, Edit

ID_READ = '    request_id = request["id"]\n'
FIRST_CODES = "    if isinstance(exc, InvalidInputError):\n"
SECOND_CODES = "    kind = type(exc)\n"
FIRST_FAILED = "        return False, exc\n"
SECOND_FAILED = "        return failure(request_id, exception_code(exc))\n"
FIRST_CAUGHT = "    except Exception as exc:\n"  # in call_once, and in the second's invoke_tool
# Where each calls the handler: in the first's invoke_tool, and in the second's, inside its try.
FIRST_CALL = '    succeeded, outcome = call_once(tools[request["tool"]], arguments)\n'
SECOND_CALL = "        result = handler(arguments)\n"
# Where each judges a value the handler returned: `outcome` in the first's invoke_tool, `result`
# in the second's result_envelope.
FIRST_VALUE = "    try:\n        text = encode_json(outcome)\n"
SECOND_VALUE = "    try:\n        value = vocabulary_copy(result)\n"
# Where each copies the arguments for the handler.
FIRST_COPY = '    arguments = copy_arguments(request["arguments"])\n'
SECOND_COPY = '    arguments = copy.deepcopy(request["arguments"])\n'


def code_rule(
    name: str, rule: str, categories: tuple[str, ...] = ("error_codes",)
) -> ClassMutation:
    """A failure code chosen before the course's classes are asked."""
    return ClassMutation(
        name,
        categories,
        Edit("failure_code", FIRST_CODES, f"    {rule}\n{FIRST_CODES}"),
        Edit("exception_code", SECOND_CODES, f"    {rule}\n{SECOND_CODES}"),
    )
