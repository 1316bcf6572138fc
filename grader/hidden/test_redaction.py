"""Redaction (rule 3): nothing of an exception reaches the envelope, whichever code it gets.

A case counts only when invoke_tool returned a failure: then nothing of the exception may be in
it. When it raised instead (rule 8) or reported a success (a wrong code), error_codes judges the
case and it steps aside here; an envelope that says nothing passes no redaction test.
"""

from grader.hidden.cases import cases, parametrize
from grader.hidden.generated.judge import judge
from grader.hidden.generated.rules import Rule, rules_of
from grader.hidden.probes import (
    MARKER,
    envelope_of,
    failure_of,
    raises,
    scenario,
)
from grader.sandbox.observation import Observation
from grader.sandbox.session import SubmissionSession
from grader.sandbox.values import strings_in

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


@parametrize("rule", rules_of(CATEGORY))
def test_generated_scenarios_keep_the_rule(submission: SubmissionSession, rule: Rule) -> None:
    """Every generated scenario keeps the rule: ids, names, exceptions, values, budgets, nesting."""
    judge(submission, rule)
