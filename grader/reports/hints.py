"""Hints for students: for each failed test, the idea to revisit and the lesson section teaching it.

Hints name a concept and a place in the lesson, never a hidden test's inputs or source, so a
student can learn from them without being handed the tests. The place is a notebook and one of
its real section headings (TAUGHT_IN; tests/grader/reports/test_report_hints.py reads every heading
quoted back from the lessons): a test is sent where its idea is taught, which is not always the
step that teaches its category (a lone surrogate is graded under vocabulary, taught in step 4).
"""

from collections.abc import Iterable

from course.manifest import Course, Step, load_course
from grader.model import NOT_JUDGED, TestOutcome, TestStatus

# What each category is about, in a student's words. Keys are grader.model.CATEGORIES.
CONCEPTS = {
    "envelope": (
        "Every call returns a new dict with exactly the keys id, ok, value and error, the "
        "request's id unchanged (0 and an empty string are ids too), ok as the bool True or "
        "False, and nothing in the request or tools changed."
    ),
    "error_codes": (
        "Each way a call can fail has one fixed code: unknown_tool before any handler runs, "
        "invalid_input, permission_denied and not_found for the course's exceptions (and their "
        "subclasses), tool_failed for any other exception. invoke_tool returns a failure "
        "envelope instead of raising."
    ),
    "redaction": (
        "Nothing from an exception may reach the envelope: not its message, its arguments, its "
        "class name or its traceback, even when turning it into text would itself fail. Only "
        "the code goes back."
    ),
    "vocabulary": (
        "A result must be a JSON value: None, bool, int, finite float, str, list, or dict with "
        "str keys, using exact built-in types. Anything else, or anything json.dumps refuses, "
        "is invalid_result."
    ),
    "unicode_boundary": (
        "The budget counts the UTF-8 bytes of the JSON text, not characters: a size equal to "
        "max_result_bytes fits, one byte more is result_too_large, and text that cannot be "
        "encoded as UTF-8 is invalid_result."
    ),
    "ownership": (
        "Copy the arguments deeply before the handler sees them, and give back a value decoded "
        "from the JSON text, so nothing mutable is shared with the caller or the handler and "
        "every type survives exactly."
    ),
    "no_retry": (
        "Call the handler exactly once per call, whatever happens, and never for a tool name "
        "that is not in tools."
    ),
}

# What a test's status means, for the statuses that stopped the code or refused it (a wrong
# answer gets its category's hint, a step aside not_judged_hint).
STATUS_HINTS: dict[str, str] = {
    TestStatus.TIMEOUT: (
        "Your code used more processor time than one test allows, or waited far too long. "
        "Look for a loop that never ends or a long sleep, in invoke_tool or in code that runs "
        "when the file loads."
    ),
    TestStatus.CRASH: (
        "Your code stopped the grading process before it could answer, for example by calling "
        "exit() or sys.exit() or os._exit(). invoke_tool must return an envelope instead."
    ),
    TestStatus.ERROR: "Your invoke_tool could not be called, so this test could not check it.",
    TestStatus.MEMORY: "Your code used more memory than the grader allows.",
    TestStatus.OUTPUT_LIMIT: (
        "Your code printed far more than the grader allows. Remove large or repeated print calls."
    ),
    TestStatus.FORBIDDEN: (
        "Your code used something the grader does not allow in graded code, such as looking at "
        "the grader's own frames or objects, starting threads, installing signal handlers or "
        "writing to the grader's pipes. invoke_tool needs only its arguments: remove that code."
    ),
}

# Where each category's tests are taught: (notebook, section heading), unless TAUGHT_IN says
# otherwise for a test ("test_name") or one of its cases ("test_name[case]").
CATEGORY_TAUGHT_IN: dict[str, tuple[str, str]] = {
    "envelope": ("01-the-envelope.ipynb", "The envelope"),
    "error_codes": ("02-failure-codes.ipynb", "Expected failures, and everything else"),
    "redaction": ("02-failure-codes.ipynb", "Redaction: the text stays behind"),
    "vocabulary": ("03-json-vocabulary.ipynb", "The value vocabulary"),
    "unicode_boundary": ("04-byte-budget.ipynb", "Count bytes, not characters"),
    "ownership": ("05-ownership.ipynb", "Ownership in: the handler may edit what it is given"),
    "no_retry": ("06-no-retry.ipynb", "Why a failed call is not tried again"),
}
UNENCODABLE = ("04-byte-budget.ipynb", "Text that cannot be encoded at all")
TAUGHT_IN: dict[str, tuple[str, str]] = {
    "test_id_survives_success": ("01-the-envelope.ipynb", "Why the id survives a failure"),
    "test_id_survives_failure": ("01-the-envelope.ipynb", "Why the id survives a failure"),
    "test_falsy_result_is_a_success": (
        "01-the-envelope.ipynb",
        "`ok` is a real bool, and an empty value is still a value",
    ),
    "test_unencodable_text_over_the_budget_is_invalid_result": UNENCODABLE,
    **{
        f"test_value_outside_vocabulary_is_invalid_result[{case}]": UNENCODABLE
        for case in (
            "lone_surrogate",
            "escaped_surrogate",
            "low_surrogate",
            "reversed_pair",
            "surrogate_key",
            "escaped_surrogate_key",
        )
    },
    "test_nesting_too_deep_to_encode_is_invalid_result": (
        "07-invoke-tool.ipynb",
        "The order matters",
    ),
    "test_size_equal_to_budget_passes": ("04-byte-budget.ipynb", "The exact boundary"),
    "test_one_byte_over_budget_is_too_large": ("04-byte-budget.ipynb", "The exact boundary"),
    "test_value_is_faithful": (
        "05-ownership.ipynb",
        "Ownership out: the value may be the handler's own",
    ),
    "test_base_exception_propagates_unchanged": ("06-no-retry.ipynb", "Which exceptions to catch"),
    "test_base_exception_propagates_as_raised": ("06-no-retry.ipynb", "Which exceptions to catch"),
    "test_unknown_tool_code": ("07-invoke-tool.ipynb", "The order matters"),
}

NOT_RUN_HINT = "Your code could not be run, so this test could not check it."


def step_for_category(category: str, course: Course | None = None) -> Step | None:
    """Return the lesson step that teaches `category`, or None if no step claims it."""
    course = course or load_course()
    return next((step for step in course.steps if category in step.categories), None)


def step_notes(category: str, problems: Iterable[str], course: Course | None = None) -> list[str]:
    """Return the notes on a submission that concern the step teaching `category`.

    Notes name their step first (course.carry.assemble words them so), so a failed category can show
    what is wrong with that step's saved work, such as a name it uses that nothing defines.
    """
    step = step_for_category(category, course)
    if step is None:
        return []
    return [
        note
        for note in problems
        if note.startswith(f"{step.label}:") or note.startswith(f"{step.label},")
    ]


def taught_in(test_id: str, category: str) -> tuple[str, str]:
    """Return (notebook, section heading) teaching the test `test_id` ("category/name[case]")."""
    name = test_id.split("/", 1)[-1]
    return (
        TAUGHT_IN.get(name) or TAUGHT_IN.get(name.split("[", 1)[0]) or CATEGORY_TAUGHT_IN[category]
    )


def place(notebook: str, heading: str, course: Course | None = None) -> str:
    """Return how a hint names a section: Step N, “Heading” (notebook)."""
    step = (course or load_course()).step_for_notebook(notebook)
    where = f"Step {step.number}" if step is not None else notebook
    return f"{where}, “{heading}” ({notebook})"


def revisit(places: Iterable[tuple[str, str]], course: Course | None = None) -> str:
    """Return a sentence naming the lesson sections to go back to, in lesson order."""
    named = [place(notebook, heading, course) for notebook, heading in sorted(set(places))]
    return f"Revisit {' and '.join(named)}."


def category_hint(category: str, course: Course | None = None, test_ids: Iterable[str] = ()) -> str:
    """Return the hint for failed tests of `category`: the concept, then where each is taught."""
    places = [taught_in(test_id, category) for test_id in test_ids]
    return f"{CONCEPTS[category]} {revisit(places or [CATEGORY_TAUGHT_IN[category]], course)}"


def outcome_hint(
    outcome: TestOutcome, run_completed: bool = True, course: Course | None = None
) -> str:
    """Return the student-facing output for one TestOutcome: empty when it passed.

    When the run as a whole did not complete, the cause is the same for every test, so the
    hint says what happened rather than pointing at the test's category.
    """
    if outcome.status == "passed":
        return ""
    if outcome.status == NOT_JUDGED:
        return not_judged_hint(outcome.category, [outcome.decided_by])
    status_hint = STATUS_HINTS.get(outcome.status)
    if not run_completed:
        return status_hint or NOT_RUN_HINT
    if status_hint:
        return f"{status_hint} {revisit([taught_in(outcome.test_id, outcome.category)], course)}"
    hint = category_hint(outcome.category, course, [outcome.taught or outcome.test_id])
    return f"{hint} {example_words(outcome.example)}" if outcome.example else hint


def example_words(example: str) -> str:
    """Return the sentence that shows a generated test's smallest failing scenario."""
    return f"Smallest failing example: {example}."


def not_judged_hint(category: str, deciders: Iterable[str], count: int = 1, total: int = 1) -> str:
    """Return what a step aside says: which rule's fault decided it, and that it costs nothing.

    `deciders` are the categories whose rule decided the cases (none, for results that do not
    say); `count` of the test's `total` cases stepped aside.
    """
    named = sorted(set(filter(None, deciders)))
    whose = f"the rule graded under {' and '.join(named)}" if named else "another category's rule"
    decided = f"{whose} already found a fault in your code that decides the outcome"
    if count < total:
        return (
            f"Not judged for {count} of its {total} cases: there {decided}, so that fault costs "
            f"points only there. Those cases count neither for nor against {category}; the "
            "others are judged as usual."
        )
    cases = "every case of this test" if total > 1 else "this test"
    return (
        f"Not judged: for {cases}, {decided}, so that fault costs points only there. This test "
        f"counts neither for nor against {category}: fix that fault, and it will be judged."
    )
