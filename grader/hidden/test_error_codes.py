"""Error codes: unknown_tool, the code of each exception a handler raises, and rule 8."""

import pytest

from grader.hidden.probes import describe_raise, raises, scenario, unknown_tool_scenario

pytestmark = pytest.mark.category("error_codes")

COURSE_EXCEPTIONS = {
    "invalid_input": "invalid_input",
    "permission_denied": "permission_denied",
    "not_found": "not_found",
    "invalid_input_subclass": "invalid_input",
    "permission_denied_subclass": "permission_denied",
    "not_found_subclass": "not_found",
    "invalid_input_mixin": "invalid_input",
    "invalid_input_mixin_builtin_first": "invalid_input",
    "permission_denied_mixin": "permission_denied",
    "not_found_mixin": "not_found",
}
OTHER_EXCEPTIONS = (
    "key_error",
    "value_error",
    "permission_error",
    "file_not_found",
    "type_error",
    "runtime_error",
    "stop_iteration",
    "unicode_encode_error",
    "custom_exception",
    "lookalike",
    "exception_group",
    "chained",
)
BASE_EXCEPTIONS = ("keyboard_interrupt", "system_exit", "generator_exit", "custom_base")


def error_of(observation):
    """Return the envelope's error field, or a description of why there is none."""
    if observation.envelope is None:
        return describe_raise(observation)
    return observation.field("error")


@pytest.mark.parametrize("tool", ["missing", "Probe", ""])
def test_unknown_tool_code(submission, tool):
    """A tool name that is not in the tools table gives unknown_tool."""
    observation = submission.call(unknown_tool_scenario(tool=tool))
    assert error_of(observation) == "unknown_tool"


def test_unknown_tool_with_empty_table(submission):
    """A call with an empty tools table gives unknown_tool."""
    probe = unknown_tool_scenario(tool="probe")
    probe["tools"] = {}
    assert error_of(submission.call(probe)) == "unknown_tool"


@pytest.mark.parametrize("kind", COURSE_EXCEPTIONS)
def test_course_exception_code(submission, kind):
    """A course exception, a subclass of it, or one mixed with a built-in, gives its own code."""
    observation = submission.call(scenario(raises(kind)))
    assert error_of(observation) == COURSE_EXCEPTIONS[kind]


def test_exception_of_two_course_classes(submission):
    """An exception that is an instance of two course classes gets the code of either."""
    observation = submission.call(scenario(raises("ambiguous")))
    assert error_of(observation) in ("invalid_input", "not_found")


@pytest.mark.parametrize("kind", OTHER_EXCEPTIONS)
def test_other_exception_is_tool_failed(submission, kind):
    """Any other exception, built-ins like KeyError or PermissionError included, is tool_failed."""
    observation = submission.call(scenario(raises(kind)))
    assert error_of(observation) == "tool_failed"


@pytest.mark.parametrize("kind", ["invalid_input", "value_error"])
def test_exception_without_message_still_has_its_code(submission, kind):
    """An exception raised with no message at all still gets its code."""
    expected = {"invalid_input": "invalid_input", "value_error": "tool_failed"}[kind]
    observation = submission.call(scenario(raises(kind, message="")))
    assert error_of(observation) == expected


@pytest.mark.parametrize("kind", BASE_EXCEPTIONS)
def test_base_exception_propagates_unchanged(submission, kind):
    """A BaseException that is not an Exception, such as KeyboardInterrupt, propagates unchanged."""
    observation = submission.call(scenario(raises(kind)))
    assert observation.raised is not None, "invoke_tool returned instead of letting it propagate"
    assert observation.raised["same_object"], f"{describe_raise(observation)}, a different object"
