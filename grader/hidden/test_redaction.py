"""Redaction (rule 3): nothing of an exception reaches the envelope, whichever code it gets.

A case counts only when invoke_tool returned a failure: then nothing of the exception may be in
it. When it raised instead (rule 8) or reported a success (a wrong code), error_codes judges the
case and it steps aside here; an envelope that says nothing passes no redaction test. Two rule 3
sentences are judged on what invoke_tool did, whatever it was: an exception whose str() and
repr() fail still gets its code, and twins (one class, different in anything else) get the very
same envelope.
"""

from typing import Any

from grader.hidden.cases import cases, parametrize
from grader.hidden.judge.contract_rules import Rule, rules_of
from grader.hidden.judge.judging import judge
from grader.hidden.probes import (
    MARKER,
    describe_raise,
    envelope_of,
    failed,
    failure_of,
    raises,
    scenario,
)
from grader.sandbox.crossing import ToolSpec, tag
from grader.sandbox.handlers import check_spec
from grader.sandbox.observation import Observation
from grader.sandbox.session import SubmissionSession
from grader.sandbox.values import same_json, shown, strings_in

CATEGORY = "redaction"

KINDS = {
    "invalid_input": "for InvalidInputError",
    "permission_denied": "for PermissionDeniedError",
    "not_found": "for NotFoundError",
    "not_found_mixin": "for KeyError mixed with NotFoundError",
    "key_error": "for KeyError, whose str() adds quotes",
    "value_error": "for ValueError",
    "permission_error": "for the built-in PermissionError",
    "runtime_error": "for RuntimeError",
    "custom_exception": "for a tool's own exception class, whose name is private too",
    "lookalike": "for an unrelated class named InvalidInputError",
    "exception_group": "for an ExceptionGroup",
    "chained": "for an exception raised from another",
    "with_notes": "for an exception carrying notes",
    "structured_args": "for an exception carrying several arguments",
    "unicode_encode_error": "for UnicodeEncodeError, which carries the text it failed on",
    "code_attribute": "for an exception carrying a code attribute",
    "unprintable": "for an exception whose str() and repr() fail",
    "unprintable_course": "for a course exception whose str() and repr() fail",
}


def leaks(observation: Observation) -> list[str]:
    """Return the strings of the envelope that reveal the exception, if any."""
    failure_of(observation)  # only a failure envelope shows whether a failure was redacted
    names = observation["handler_raised"]
    found = []
    for text in strings_in(envelope_of(observation), observation.walk()):
        if MARKER in text or "Traceback" in text or any(name in text for name in names):
            found.append(text)
    return found


@parametrize("kind", cases({kind: (words, kind) for kind, words in KINDS.items()}))
def test_exception_text_stays_out_of_the_envelope(submission: SubmissionSession, kind: str) -> None:
    """No exception's message, arguments, notes, type name or traceback appear in the envelope."""
    observation = submission.call(scenario(raises(kind)))
    assert not leaks(observation)


# Exceptions whose str() and repr() raise. Which code each gets is error_codes' question.
TEXT_FAILS = {
    "unprintable": "for a RuntimeError whose str() and repr() fail",
    "unprintable_course": "for a NotFoundError whose str() and repr() fail",
    "broken_text_fault": "for a tool's own exception whose str() and repr() fail",
    "broken_text_permission_denied": (
        "for a PermissionDeniedError subclass whose str() and repr() fail"
    ),
}


@parametrize("kind", cases({kind: (words, kind) for kind, words in TEXT_FAILS.items()}))
def test_an_exception_whose_text_fails_still_gets_a_code(
    submission: SubmissionSession, kind: str
) -> None:
    """An exception whose str() and repr() raise still gives a failure envelope, not an error."""
    observation = submission.call(scenario(raises(kind)))
    assert observation.envelope is not None, describe_raise(observation)
    assert failed(observation), "the call did not fail, though the handler raised"


def raising(kind: str, message: str = MARKER, **extras: Any) -> ToolSpec:
    """A handler raising `kind` with `message` and any of args, attributes or depth."""
    spec: dict[str, Any] = {"does": "raise", "exception": kind, "message": message, **extras}
    return check_spec(spec)  # type: ignore[arg-type]


# Pairs of exceptions of one class that differ in one other thing: (words, first, second).
TWINS = {
    "message": (
        "for two ValueErrors whose messages name different codes",
        raising("value_error", "not_found: no such user"),
        raising("value_error", "permission denied"),
    ),
    "arguments": (
        "for two InvalidInputErrors with different arguments",
        raising("invalid_input", args=[tag(403)]),
        raising("invalid_input", args=[tag("limit"), tag({"code": "not_found"})]),
    ),
    "errno": (
        # Set after the class is made: OSError(13, ...) itself would make a PermissionError.
        "for two OSErrors with different errno attributes",
        raising("os_error", attributes={"errno": tag(13)}),
        raising("os_error", attributes={"errno": tag(2)}),
    ),
    "code_attribute": (
        "for a ValueError with a code attribute and one without",
        raising("code_attribute"),
        raising("value_error"),
    ),
    "cause": (
        "for a ValueError raised from a NotFoundError and a plain one",
        raising("caused_by_course"),
        raising("value_error"),
    ),
    "context": (
        "for a KeyError raised while handling an InvalidInputError and a plain one",
        raising("context_of_course"),
        raising("key_error"),
    ),
    "course_cause": (
        "for a PermissionDeniedError raised from a NotFoundError and a plain one",
        raising("course_caused_by_other"),
        raising("permission_denied"),
    ),
    "notes": (
        "for a RuntimeError whose notes name codes and a plain one",
        raising("notes_spell_a_code"),
        raising("runtime_error"),
    ),
    "carried": (
        "for a RuntimeError carrying a NotFoundError and a plain one",
        raising("course_in_args"),
        raising("runtime_error"),
    ),
    "group": (
        "for two ExceptionGroups holding different course errors",
        raising("exception_group"),
        raising("group_of_codes"),
    ),
    "text_fails": (
        "for a NotFoundError whose str() fails and a plain one",
        raising("unprintable_course"),
        raising("not_found"),
    ),
    "depth": (
        "for two ValueErrors raised at different depths in the tool",
        raising("value_error"),
        raising("value_error", depth=20),
    ),
}


@parametrize("pair", cases({name: (words, (a, b)) for name, (words, a, b) in TWINS.items()}))
def test_twin_exceptions_give_the_same_envelope(
    submission: SubmissionSession, pair: tuple[ToolSpec, ToolSpec]
) -> None:
    """Two exceptions of one class that differ in anything else give the very same envelope."""
    first, second = (submission.call(scenario(handler)) for handler in pair)
    for observation in (first, second):  # raising for both is no envelope, and no answer
        assert observation.envelope is not None, describe_raise(observation)
    got = envelope_of(first), envelope_of(second)
    assert same_json(*got, first.walk()), f"the twins gave {shown(got[0])} and {shown(got[1])}"


@parametrize("rule", rules_of(CATEGORY))
def test_generated_scenarios_keep_the_rule(submission: SubmissionSession, rule: Rule) -> None:
    """Each generated scenario keeps the rule: ids, names, exceptions, values, budgets, programs."""
    judge(submission, rule)
