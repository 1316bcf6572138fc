"""Error codes: unknown_tool, the code of each exception a handler raises, and rule 8.

The code follows from the exception's class alone: never from its message, attributes, notes,
cause or context, nor from a class that merely shares a course class's name. A tool is any key
of the tools table, whatever its handler's truth value. Rule 8 is judged here too: whatever a
handler returns or raises, invoke_tool returns an envelope, and a BaseException that is not an
Exception goes on as the very object the handler raised, unchanged.
"""

from typing import Any

from course.contract import (
    EXCEPTION_CODES_PART,
    INVALID_INPUT,
    NOT_FOUND,
    PERMISSION_DENIED,
    TOOL_FAILED,
    UNKNOWN_TOOL,
)
from grader.hidden.cases import cases, judges, parametrize
from grader.hidden.judge.contract_rules import Rule, rules_of
from grader.hidden.judge.judging import judge
from grader.hidden.probes import (
    FALSY_HANDLERS,
    ROOMY,
    UNKNOWN_NAMES,
    code_of,
    describe_raise,
    outcome_of,
    raises,
    returns,
    returns_made,
    scenario,
    step_aside,
    unknown_tool_scenario,
)
from grader.hidden.results import (
    ACCEPTED,
    ARGUMENT_SETS,
    MADE,
    ONE,
    OUTSIDE,
    UNENCODABLE_AND_LONG,
)
from grader.hidden.verdicts import EXCEPTION_CODES
from grader.sandbox.crossing import ToolSpec
from grader.sandbox.handlers import Scenario
from grader.sandbox.session import SubmissionSession

CATEGORY = "error_codes"

COURSE_EXCEPTIONS = {
    "invalid_input": ("for InvalidInputError", INVALID_INPUT),
    "permission_denied": ("for PermissionDeniedError", PERMISSION_DENIED),
    "not_found": ("for NotFoundError", NOT_FOUND),
    "invalid_input_subclass": ("for a subclass of InvalidInputError", INVALID_INPUT),
    "permission_denied_subclass": ("for a subclass of PermissionDeniedError", PERMISSION_DENIED),
    "not_found_subclass": ("for a subclass of NotFoundError", NOT_FOUND),
    "invalid_input_mixin": ("for InvalidInputError mixed with ValueError", INVALID_INPUT),
    "invalid_input_mixin_builtin_first": (
        "for ValueError mixed with InvalidInputError",
        INVALID_INPUT,
    ),
    "permission_denied_mixin": (
        "for PermissionError mixed with PermissionDeniedError",
        PERMISSION_DENIED,
    ),
    "not_found_mixin": ("for KeyError mixed with NotFoundError", NOT_FOUND),
    "course_code_attribute": (
        "for NotFoundError with a code attribute naming another code",
        NOT_FOUND,
    ),
    "course_caused_by_other": (
        "for PermissionDeniedError raised from a NotFoundError",
        PERMISSION_DENIED,
    ),
    "course_notes_spell_a_code": (
        "for InvalidInputError with notes naming other codes",
        INVALID_INPUT,
    ),
    "unprintable_course": ("for NotFoundError whose str() and repr() fail", NOT_FOUND),
    "structured_args": ("for InvalidInputError carrying several arguments", INVALID_INPUT),
}
OTHER_EXCEPTIONS = {
    "key_error": "for KeyError",
    "value_error": "for ValueError",
    "permission_error": "for the built-in PermissionError",
    "file_not_found": "for FileNotFoundError",
    "module_not_found": "for ModuleNotFoundError",
    "lookup_error": "for LookupError",
    "type_error": "for TypeError",
    "runtime_error": "for RuntimeError",
    "recursion_error": "for RecursionError",
    "not_implemented": "for NotImplementedError",
    "os_error": "for OSError",
    "connection_error": "for ConnectionError",
    "timeout_error": "for TimeoutError",
    "memory_error": "for MemoryError",
    "process_lookup": "for ProcessLookupError",
    "index_error": "for IndexError",
    "assertion_error": "for AssertionError",
    "overflow_error": "for OverflowError",
    "zero_division": "for ZeroDivisionError",
    "stop_iteration": "for StopIteration",
    "unicode_encode_error": "for UnicodeEncodeError",
    "unicode_error": "for UnicodeError",
    "plain_exception": "for a plain Exception",
    "custom_exception": "for a tool's own Exception subclass",
    "lookalike": "for an unrelated class named InvalidInputError",
    "lookalike_not_found": "for an unrelated LookupError named NotFoundError",
    "exception_group": "for an ExceptionGroup holding an InvalidInputError",
    "chained": "for a RuntimeError raised from an InvalidInputError",
    "caused_by_course": "for a ValueError raised from a NotFoundError",
    "context_of_course": "for a KeyError raised while handling an InvalidInputError",
    "code_attribute": "for a ValueError with a code attribute naming a course code",
    "notes_spell_a_code": "for a RuntimeError whose notes name course codes",
    "unprintable": "for a RuntimeError whose str() and repr() fail",
    "with_notes": "for a tool's own exception carrying notes",
}
# Messages that spell a code or say what a code means: the message must change nothing.
MISLEADING_MESSAGES = {
    "other_spells_not_found": (
        "for a KeyError whose message is not_found",
        "key_error",
        NOT_FOUND,
    ),
    "other_says_not_found": (
        'for a LookupError whose message says "not found"',
        "lookup_error",
        "user u-1 not found",
    ),
    "other_says_permission": (
        'for a PermissionError whose message says "permission denied"',
        "permission_error",
        "permission denied: admin only",
    ),
    "other_says_invalid": (
        'for a ValueError whose message says "invalid input"',
        "value_error",
        "invalid_input: limit must be positive",
    ),
    "course_spells_another": (
        "for a NotFoundError whose message is permission_denied",
        "not_found",
        PERMISSION_DENIED,
    ),
    "course_spells_unknown": (
        "for an InvalidInputError whose message is unknown_tool",
        "invalid_input",
        UNKNOWN_TOOL,
    ),
}
CODE_OF_KIND = {"not_found": NOT_FOUND, "invalid_input": INVALID_INPUT}
BASE_EXCEPTIONS = {
    "keyboard_interrupt": "for KeyboardInterrupt",
    "system_exit": "for SystemExit",
    "generator_exit": "for GeneratorExit",
    "custom_base": "for a tool's own BaseException subclass",
}
# Results that cannot cross the boundary: invoke_tool must return an envelope for each. They are
# every value the vocabulary category refuses, so raising for one never only steps aside there.
# Each is the very scenario the vocabulary category asks, so it runs once per submission.
BAD_RESULTS = {name: (words, scenario(returns(value))) for name, (words, value) in OUTSIDE.items()}
BAD_RESULTS |= {name: (words, scenario(returns_made(name))) for name, words in MADE.items()}
BAD_RESULTS |= {
    "too_deep": (
        "for a result nested too deeply for json.dumps",
        scenario(returns_made("deep_list", depth=5000)),
    ),
    "outside_and_too_large": (
        "for a tuple result over the budget",
        scenario(returns(("x" * 100,) * 20), max_result_bytes=50),
    ),
    "unencodable_and_long": (
        "for text with a lone surrogate over the budget",
        scenario(returns(UNENCODABLE_AND_LONG), max_result_bytes=10),
    ),
    # The envelope's own failure over the budget: raising for it is judged here.
    "over_the_budget": (
        "for a result over the byte budget",
        scenario(returns("x" * 50), max_result_bytes=10),
    ),
}
# Results that succeed, from every category: invoke_tool must not raise for any of them either.
GOOD_RESULTS = {name: (words, returns(value)) for name, (words, value) in ACCEPTED.items()}
GOOD_RESULTS |= {
    "shared_list": ("for a result holding one list twice", returns_made("shared_list")),
    "deep_150": ("for a list nested 150 levels deep", returns_made("deep_list", depth=150)),
    "deep_200": ("for a list nested 200 levels deep", returns_made("deep_list", depth=200)),
}


error_of = code_of


@judges(UNKNOWN_TOOL)
@parametrize("tool", cases(UNKNOWN_NAMES))
def test_unknown_tool_code(submission: SubmissionSession, tool: str) -> None:
    """A tool name that is not exactly a key of the tools table gives unknown_tool."""
    observation = submission.call(unknown_tool_scenario(tool=tool))
    assert error_of(observation) == UNKNOWN_TOOL


@judges(UNKNOWN_TOOL)
def test_unknown_tool_with_empty_table(submission: SubmissionSession) -> None:
    """A call with an empty tools table gives unknown_tool."""
    probe = unknown_tool_scenario(tool="probe")
    probe["tools"] = {}
    assert error_of(submission.call(probe)) == UNKNOWN_TOOL


@judges(UNKNOWN_TOOL)
@parametrize("handler", cases(FALSY_HANDLERS))
def test_a_handler_that_is_false_is_still_a_tool(
    submission: SubmissionSession, handler: ToolSpec
) -> None:
    """A tool whose handler object is false in an `if` is still a known tool, never unknown_tool.

    CONTRACT.md: unknown_tool is for a name that "is not a key of tools", and a handler is any
    callable, so `if not tools.get(name)` takes such a handler for a missing tool. Whether it is
    called at all is no_retry's question on the very same scenarios.
    """
    observation = submission.call(scenario(handler))
    if handler["does"] == "raise":
        assert error_of(observation) == NOT_FOUND
        return
    assert observation.envelope is not None, describe_raise(observation)
    assert outcome_of(observation) not in EXCEPTION_CODES


@judges(EXCEPTION_CODES_PART)
@parametrize("kind", cases({k: (w, k) for k, (w, _) in COURSE_EXCEPTIONS.items()}))
def test_course_exception_code(submission: SubmissionSession, kind: str) -> None:
    """A course exception, a subclass of it, or one mixed with a built-in, gives its own code."""
    observation = submission.call(scenario(raises(kind)))
    assert error_of(observation) == COURSE_EXCEPTIONS[kind][1]


@judges(EXCEPTION_CODES_PART)
def test_exception_of_two_course_classes(submission: SubmissionSession) -> None:
    """An exception that is an instance of two course classes gets the code of either."""
    observation = submission.call(scenario(raises("ambiguous")))
    assert error_of(observation) in (INVALID_INPUT, NOT_FOUND)


@judges(EXCEPTION_CODES_PART)
@parametrize("kind", cases({k: (w, k) for k, w in OTHER_EXCEPTIONS.items()}))
def test_other_exception_is_tool_failed(submission: SubmissionSession, kind: str) -> None:
    """Any other exception, built-ins like KeyError or PermissionError included, is tool_failed."""
    observation = submission.call(scenario(raises(kind)))
    assert error_of(observation) == TOOL_FAILED


@judges(EXCEPTION_CODES_PART)
@parametrize(
    "case", cases({k: (w, (kind, text)) for k, (w, kind, text) in MISLEADING_MESSAGES.items()})
)
def test_the_message_never_decides_the_code(
    submission: SubmissionSession, case: tuple[str, str]
) -> None:
    """The code comes from the exception's class alone, whatever its message says."""
    kind, message = case
    observation = submission.call(scenario(raises(kind, message=message)))
    assert error_of(observation) == CODE_OF_KIND.get(kind, TOOL_FAILED)


@judges(EXCEPTION_CODES_PART)
@parametrize(
    "kind",
    cases(
        {
            "course": ("for InvalidInputError", "invalid_input"),
            "other": ("for ValueError", "value_error"),
        }
    ),
)
def test_exception_without_message_still_has_its_code(
    submission: SubmissionSession, kind: str
) -> None:
    """An exception raised with no message at all still gets its code."""
    expected = {"invalid_input": INVALID_INPUT, "value_error": TOOL_FAILED}[kind]
    observation = submission.call(scenario(raises(kind, message="")))
    assert error_of(observation) == expected


# Every exception of the code tests, now asked only whether invoke_tool answers at all.
RAISED_KINDS = {k: (words, k) for k, (words, _code) in COURSE_EXCEPTIONS.items()}
RAISED_KINDS |= {k: (words, k) for k, words in OTHER_EXCEPTIONS.items()}


@judges("rule 8")
@parametrize("kind", cases(RAISED_KINDS))
def test_a_raising_handler_never_makes_invoke_tool_raise(
    submission: SubmissionSession, kind: str
) -> None:
    """Whatever Exception a handler raises, invoke_tool returns an envelope instead of raising."""
    observation = submission.call(scenario(raises(kind)))
    assert observation.envelope is not None, describe_raise(observation)


@judges("rule 8")
@parametrize("probe", cases(BAD_RESULTS))
def test_a_result_that_cannot_be_encoded_never_escapes(
    submission: SubmissionSession, probe: Scenario
) -> None:
    """Whatever a handler returns, invoke_tool returns an envelope instead of raising."""
    observation = submission.call(probe)
    assert observation.envelope is not None, describe_raise(observation)


@judges("rule 8")
@parametrize("handler", cases(GOOD_RESULTS))
def test_an_accepted_result_never_makes_invoke_tool_raise(
    submission: SubmissionSession, handler: ToolSpec
) -> None:
    """A result inside the vocabulary, large or small, gives an envelope, never an exception."""
    observation = submission.call(scenario(handler, max_result_bytes=ROOMY))
    assert observation.envelope is not None, describe_raise(observation)


# Rule 2 names the falsy results (None, False, 0, 0.0, "", [], {}) as successes: refusing one
# is the envelope's case, so only the other results are asked here.
RETURNED = {
    name: case
    for name, case in GOOD_RESULTS.items()
    if name not in ACCEPTED or ACCEPTED[name][1]  # made results are never falsy
}


@judges(EXCEPTION_CODES_PART)
@parametrize("handler", cases(RETURNED))
def test_a_returned_result_never_gets_an_exception_code(
    submission: SubmissionSession, handler: ToolSpec
) -> None:
    """A handler that returns normally never gets unknown_tool or an exception's code."""
    observation = submission.call(scenario(handler, max_result_bytes=ROOMY))
    if observation.envelope is None:  # the test above judges that
        reason = f"{describe_raise(observation)}, which another test here judges"
        raise step_aside(reason, CATEGORY, observation)
    assert outcome_of(observation) not in EXCEPTION_CODES


@judges(EXCEPTION_CODES_PART)
@parametrize("arguments", cases(ARGUMENT_SETS))
def test_arguments_never_decide_the_code(
    submission: SubmissionSession, arguments: dict[str, Any]
) -> None:
    """A handler that returns normally never gets an exception's code, whatever the arguments."""
    observation = submission.call(scenario(returns(ONE), arguments=arguments))
    assert observation.envelope is not None, describe_raise(observation)
    assert outcome_of(observation) not in EXCEPTION_CODES


@judges("rule 8")
@parametrize(
    "budget",
    cases(
        {
            "fits": ("for a result within its budget", 10**7),
            "over": ("for a result over its budget", 10),
        }
    ),
)
def test_a_result_over_or_under_its_budget_never_escapes(
    submission: SubmissionSession, budget: int
) -> None:
    """A result of any size gives an envelope: being over the budget is a code, not an error."""
    observation = submission.call(scenario(returns("x" * 50), max_result_bytes=budget))
    assert observation.envelope is not None, describe_raise(observation)


@judges("rule 8")
@parametrize("kind", cases({k: (w, k) for k, w in BASE_EXCEPTIONS.items()}))
def test_base_exception_propagates_unchanged(submission: SubmissionSession, kind: str) -> None:
    """A BaseException that is not an Exception, such as KeyboardInterrupt, propagates unchanged."""
    observation = submission.call(scenario(raises(kind)))
    assert observation.raised is not None, "invoke_tool returned instead of letting it propagate"
    assert observation.raised["same_object"], f"{describe_raise(observation)}, a different object"


@judges("rule 8")
@parametrize("kind", cases({k: (w, k) for k, w in BASE_EXCEPTIONS.items()}))
def test_base_exception_propagates_as_raised(submission: SubmissionSession, kind: str) -> None:
    """A BaseException such as KeyboardInterrupt goes on as raised: no note, no `from`, same args.

    Rule 8: it "propagates unchanged: the very same object". The test above asks for the very
    same object; this one asks that it is unchanged, by what the worker reads of it through
    BaseException's own descriptors when the handler raised it and when invoke_tool let it go:
    its args, its notes (the list and how many), its __cause__ and its __suppress_context__.

    Could "unchanged" mean no more than "the very same object"? Then the word would add nothing
    to the words after the colon; the contract asks for both, and elsewhere (rule 9) "changes"
    means any edit to an object the caller holds. So each of the four counts:
    - A note (add_note, or appending to __notes__) is text the tool never put there, printed
      under every traceback of the exception. PEP 678 made notes to enrich an exception on its
      way up, but the contract, which wins over a language's habits, asks for it unchanged.
    - New args are a new message: what str() of the exception says.
    - `raise error from None` is documented as setting the exception's __cause__ (to None) and
      its __suppress_context__ (to True): it drops a cause the tool gave it and hides the
      context it was raised in, say a Ctrl-C that arrived while the tool handled another error.
      The exceptions raised here carry neither, so here it shows only as __suppress_context__
      turned on; that is still an attribute of the object set by the student's statement, and
      the statement is there to change how the exception reads, so it is not accepted.
    What Python does to every exception that passes through a frame is no change of the
    student's and is accepted, unasked: its traceback growing by the frames it leaves, and the
    __context__ Python sets when it is raised again while another exception is being handled.
    """
    observation = submission.call(scenario(raises(kind)))
    raised = observation.raised
    assert raised is not None, "invoke_tool returned instead of letting it propagate"
    assert raised["same_object"], f"{describe_raise(observation)}, a different object"
    assert raised["changed"] == [], f"invoke_tool changed its {', '.join(raised['changed'])}"


@parametrize("rule", rules_of(CATEGORY))
def test_generated_scenarios_keep_the_rule(submission: SubmissionSession, rule: Rule) -> None:
    """Each generated scenario keeps the rule: ids, names, exceptions, values, budgets, programs."""
    judge(submission, rule)
