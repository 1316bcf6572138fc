"""A generated scenario in a student's words: the request, the tools, what the handler does."""

import functools
import json
from typing import Any

from grader.hidden.probes import MARKER
from grader.sandbox.crossing import EXCEPTION_CLASSES, ToolSpec, build, untag
from grader.sandbox.handlers import Scenario, inner_scenario
from grader.sandbox.values import shown

# The zoo's own classes, said by what they are rather than by their private names.
ZOO = {
    "unhashable_invalid_input": "a subclass of InvalidInputError whose class cannot be hashed",
    "unhashable_fault": "an Exception subclass whose class cannot be hashed",
    "claims_every_class": "an Exception subclass whose class claims to equal every class",
    "cancelled_error": "asyncio.CancelledError (a BaseException, not an Exception)",
    "interrupted_invalid_input": "a class that is both InvalidInputError and KeyboardInterrupt",
    "exiting_not_found": "a class that is both SystemExit and NotFoundError",
    "stopped_fault": "a class that is both GeneratorExit and Exception",
    "deep_not_found": "a subclass of a subclass of NotFoundError",
    "broken_text_fault": "an Exception subclass whose str() and repr() raise",
    "broken_text_permission_denied": "a PermissionDeniedError subclass whose str() raises",
    "invalid_input_subclass": "a subclass of InvalidInputError",
    "permission_denied_subclass": "a subclass of PermissionDeniedError",
    "not_found_subclass": "a subclass of NotFoundError",
    "invalid_input_mixin": "a class of InvalidInputError and ValueError",
    "invalid_input_mixin_builtin_first": "a class of ValueError and InvalidInputError",
    "permission_denied_mixin": "a class of PermissionError and PermissionDeniedError",
    "not_found_mixin": "a class of KeyError and NotFoundError",
    "ambiguous": "a class of both InvalidInputError and NotFoundError",
    "custom_exception": "a tool's own Exception subclass",
    "lookalike": 'an unrelated Exception class also named "InvalidInputError"',
    "lookalike_not_found": 'an unrelated LookupError class also named "NotFoundError"',
    "custom_base": "a tool's own BaseException subclass (not an Exception)",
    "falsy_invalid_input": "a subclass of InvalidInputError whose bool() is False",
    "falsy_fault": "an Exception subclass whose bool() is False",
    "empty_not_found": "a subclass of NotFoundError whose len() is 0",
    "touchy_fault": "an Exception subclass whose unknown attributes raise RuntimeError",
    "touchy_permission_denied": (
        "a subclass of PermissionDeniedError whose unknown attributes raise RuntimeError"
    ),
    "hashless_invalid_input": "a subclass of InvalidInputError whose instances cannot be hashed",
    "hashless_fault": "an Exception subclass whose instances cannot be hashed",
}
# Exceptions made another way than from a class and a message (kinds.make_exception).
SPECIAL = {
    "unicode_encode_error": "UnicodeEncodeError",
    "exception_group": "an ExceptionGroup holding an InvalidInputError",
    "chained": "a RuntimeError caused by an InvalidInputError",
    "with_notes": "an exception with a note",
    "unprintable": "a RuntimeError whose str() raises",
    "unprintable_course": "a NotFoundError whose str() raises",
    "structured_args": "an InvalidInputError with a dict and a number as arguments",
    "group_of_codes": "an ExceptionGroup holding a NotFoundError and a PermissionDeniedError",
    "interrupt_group": "a BaseExceptionGroup holding a KeyboardInterrupt (not an Exception)",
    "interrupt_and_course_group": (
        "a BaseExceptionGroup holding a NotFoundError and a KeyboardInterrupt (not an Exception)"
    ),
    "course_in_args": "a RuntimeError whose argument is a NotFoundError",
    "deep_cause_chain": (
        "a ValueError caused by a RuntimeError raised while handling an InvalidInputError"
    ),
    "code_attribute": 'a ValueError with code = "permission_denied"',
    "course_code_attribute": 'a NotFoundError with code = "permission_denied"',
    "caused_by_course": "a ValueError caused by a NotFoundError",
    "course_caused_by_other": "a PermissionDeniedError caused by a NotFoundError",
    "context_of_course": "a KeyError raised while handling an InvalidInputError",
    "caused_by_connection": "a RuntimeError caused by a ConnectionError",
    "timeout_in_context": "a ValueError raised while handling a TimeoutError",
    "notes_spell_a_code": "a RuntimeError whose notes name codes",
    "course_notes_spell_a_code": "an InvalidInputError whose notes name codes",
}


def exception_words(spec: ToolSpec) -> str:
    """Say which exception a tool raises, with what, in a student's words."""
    kind = spec["exception"]
    if kind in ZOO or kind in SPECIAL:
        said = ZOO.get(kind) or SPECIAL[kind]
    else:
        said = EXCEPTION_CLASSES[kind].__name__
    if "args" in spec:
        arguments = [_private(untag(argument)) for argument in spec["args"]]
        said += (
            " raised bare, with no arguments" if not arguments else f" with arguments {arguments}"
        )
    else:
        said += " with a private message"
    if spec.get("depth"):
        said += f", raised {spec['depth']} calls deep inside the tool"
    attributes = spec.get("attributes") or {}
    if attributes:
        pairs = ", ".join(f"{name} = {shown(_private(untag(v)))}" for name, v in attributes.items())
        said += f" and the attributes {pairs}"
    return said


def _private(value: Any) -> Any:
    """Show the suite's secret as what it is, wherever it is: a private message."""
    if type(value) is str:
        return "<private message>" if MARKER in value else value
    if type(value) is list:
        return [_private(item) for item in value]
    if type(value) is dict:
        return {key: _private(item) for key, item in value.items()}
    return value


def handler_words(spec: ToolSpec) -> str:
    """Say what a tool does."""
    does = spec["does"]
    falsy = "a handler object whose bool() is False that " if spec.get("falsy") else ""
    if does == "raise":
        return f"{falsy}raises {exception_words(spec)}"
    if does == "flaky":
        value = shown(untag(spec.get("value")))
        return f"{falsy}raises {exception_words(spec)} on its first call and returns {value} after"
    if does == "mutate":
        return f"{falsy}changes its arguments at every depth, then returns {_value(spec)}"
    if does == "return_fixture":
        return f"{falsy}returns its own stored object {shown(untag(spec['fixture']))}"
    if does == "return_arguments":
        return f"{falsy}returns the very arguments it was given"
    if does == "nest":
        return f"{falsy}{nest_words(spec)}"
    return f"{falsy}returns {_value(spec)}"


def nest_words(spec: ToolSpec) -> str:
    """Say what a tool that calls invoke_tool itself does: that call, and what it does then."""
    then = spec.get("then", "return")
    if then == "raise":
        after = f"raises {exception_words(spec)}"
    elif then == "return_inner":
        after = 'returns the "value" of the envelope it got'
    else:
        after = f"returns {_value(spec)}"
    return f"itself calls invoke_tool ({scenario_words(inner_scenario(spec))}), then {after}"


# Objects a tool returns (kinds.RETURNED_EXCEPTIONS, TOUCHY_RESULTS), said as what they are.
RETURNED = {
    "returned_not_found": "a NotFoundError instance (returned, not raised)",
    "returned_key_error": "a KeyError instance (returned, not raised)",
    "returned_interrupt": "a KeyboardInterrupt instance (returned, not raised)",
    "truthless": "an object whose truth value raises",
    "incomparable": "an object that raises when compared",
}


def _value(spec: ToolSpec) -> str:
    value = spec.get("value")
    if type(value) is dict and value.get("make") == "placed":
        item = str(value["item"])
        said = RETURNED.get(item) or f"a {item.replace('_', ' ')} object"
        if not value["at"]:
            return said
        return f"{shown(untag(value['value']))} with {said} put inside it"
    if type(value) is dict and value.get("make") == "long_text":
        return f"a text of {value['count']} times {shown(value['text'])}"
    if type(value) is dict and "make" in value:
        return f"a value made of {value['make'].replace('_', ' ')}"
    return shown(untag(value))


def exact(value: object) -> str:
    """Show a value with every character that is not ASCII escaped, so forms can be told apart.

    Two names that differ only in Unicode normal form ("pr\u00f6be", "pro\u0308be") or by an
    invisible character look alike printed; escaped, a student sees which is which.
    """
    text = shown(value, 160)
    return text.encode("ascii", "backslashreplace").decode("ascii")


def scenario_words(scenario: Scenario) -> str:
    """Say the whole scenario: the request, the tools, the budget and how often it is called."""
    request = scenario["request"]
    if "arguments_made" in scenario:
        said = f"for the request {exact({**request, 'arguments': '…'})}, {large_words(scenario)}"
    else:
        said = f"for the request {exact(request)}"
    tools = scenario["tools"]
    if request["tool"] not in tools:
        said += f" when the tools are named {exact(list(tools))}"
    for name, spec in tools.items():
        said += f"; the tool {exact(name)} {handler_words(spec)}"
    if "max_result_bytes" in scenario:
        said += f"; max_result_bytes={scenario['max_result_bytes']}"
    repeat = scenario.get("repeat", 1)
    if repeat != 1:
        said += f"; invoke_tool called {repeat} times"
    return said


def large_words(scenario: Scenario) -> str:
    """Say how large a scenario's made arguments are: a MiB of them would not fit in a message."""
    keys, size = _made_size(json.dumps(scenario["arguments_made"], sort_keys=True))
    return f"whose arguments are a dict of {keys} keys, {size:,} bytes as JSON"


@functools.cache
def _made_size(recipe: str) -> tuple[int, int]:
    """Return the keys and JSON bytes of the arguments a recipe makes, measured once a process.

    Every failing call that carries them is said with their size: encoding MiB each time would
    cost a class more than judging them.
    """
    arguments = build(json.loads(recipe))
    assert isinstance(arguments, dict)  # a request's arguments
    return len(arguments), len(json.dumps(arguments, ensure_ascii=False).encode("utf-8"))


ORDINALS = ("first", "second", "third", "4th", "5th", "6th", "7th", "8th")


def program_words(earlier: list[Any], fault: str) -> str:
    """Say a fault found on a later call of a program, after what its earlier calls were.

    `earlier` holds the program's calls before the failing one (corpus Entries, or anything
    with a `scenario`), said briefly: the whole failing call follows in the example itself.
    """
    count = len(earlier)
    briefs = "; ".join(f"{n}: {brief_words(e.scenario)}" for n, e in enumerate(earlier, 1))
    calls = "call" if count == 1 else "calls"
    place = ORDINALS[count] if count < len(ORDINALS) else f"{count + 1}th"
    return (
        f"after {count} earlier {calls} of invoke_tool into the same loaded code ({briefs}), "
        f"the {place} call went wrong: {fault}"
    )


def brief_words(scenario: Scenario) -> str:
    """Say one call of a program in a few words: its id, the tool it asks for, what that does."""
    request, tools = scenario["request"], scenario["tools"]
    name = request["tool"]
    said = f"id {exact(request['id'])}, tool {exact(name)}"
    if name in tools:
        said += f" that {handler_words(tools[name])}"
    else:
        said += f" not in the tools {exact(list(tools))}"
    if "arguments_made" in scenario:
        said += f", {large_words(scenario)}"
    elif request["arguments"] != {"q": 1}:
        said += f", arguments {exact(request['arguments'])}"
    if "max_result_bytes" in scenario:
        said += f", max_result_bytes={scenario['max_result_bytes']}"
    return said
