"""Visible check for step 4: `budget_error` counts UTF-8 bytes and keeps the exact boundary."""

from collections.abc import Callable, Sequence

from course.checks.harness import (
    CheckCase,
    CheckReport,
    Explainer,
    StudentFunction,
    run_checks,
    show,
)
from course.contract import DEFAULT_MAX_RESULT_BYTES, INVALID_RESULT, RESULT_TOO_LARGE

# One character of each UTF-8 length, with its cost in bytes.
CHARACTER_COSTS = (("a", 1), ("é", 2), ("東", 3), ("🚀", 4))


# Ways of measuring text that students reach for; only the first is the budget's.
MEASURES: tuple[tuple[str, Callable[[str], int]], ...] = (
    ("utf-8", lambda text: len(text.encode("utf-8"))),
    ("characters", len),
    ("utf-16", lambda text: len(text.encode("utf-16-le"))),
    ("utf-16", lambda text: len(text.encode("utf-16"))),  # with its two-byte BOM
)
MEASURE_HINTS = {
    "characters": "It looks as if characters were counted; count the bytes of "
    "text.encode('utf-8').",
    "utf-16": "It looks as if the text was measured in UTF-16; the budget counts the bytes of "
    "text.encode('utf-8').",
}
EQUAL_FITS_HINT = "A size equal to the budget fits: only more bytes than the budget are too large."


def _verdict_problem(
    budget_error: StudentFunction, text: str, budget: int, expected: str | None
) -> str | None:
    """Return None when budget_error(text, budget) is exactly `expected`, else a sentence."""
    call = f"budget_error({show(text)}, {budget})"
    try:
        verdict = budget_error(text, budget)
    except UnicodeEncodeError:
        return (
            f"{call} raised UnicodeEncodeError: the text holds a lone surrogate, which UTF-8 "
            'cannot encode. Catch UnicodeEncodeError and return "invalid_result".'
        )
    if verdict is expected or (type(verdict) is str and verdict == expected):
        return None
    if expected == INVALID_RESULT:
        facts = "The text holds a lone surrogate, which UTF-8 cannot encode."
        hints = []
    else:
        size = len(text.encode("utf-8"))
        facts = f"The text has {len(text)} characters and {size} UTF-8 bytes."
        hints = diagnosis(budget_error, text)
    return f"{call} returned {show(verdict)}; expected {show(expected)}.\n{facts}" + "".join(
        f"\n{hint}" for hint in hints
    )


def diagnosis(budget_error: StudentFunction, text: str) -> list[str]:
    """Return hints naming how `budget_error` measures `text`, when its answers show it.

    The student's verdicts around each measure's size are compared with what each way of
    measuring (UTF-8 bytes, characters, UTF-16), with `>` or `>=`, would answer. A hint is
    given only for what every way that fits the answers has in common.
    """
    sizes = {measure(text) for _name, measure in MEASURES}
    budgets = sorted({b for size in sizes for b in (size - 1, size, size + 1) if b >= 0})
    try:
        said = {b: budget_error(text, b) == RESULT_TOO_LARGE for b in budgets}
    except Exception:
        return []
    fitting = [
        (name, strict)
        for name, measure in MEASURES
        for strict in (True, False)
        if all((measure(text) > b if strict else measure(text) >= b) == said[b] for b in budgets)
    ]
    if not fitting:
        return []
    names = {name for name, _strict in fitting}
    hints = [MEASURE_HINTS[names.pop()]] if len(names) == 1 and "utf-8" not in names else []
    if not any(strict for _name, strict in fitting):
        hints.append(EQUAL_FITS_HINT)
    return hints


def _first(
    budget_error: StudentFunction, calls: Sequence[tuple[str, int, str | None]]
) -> str | None:
    problems = (_verdict_problem(budget_error, *call) for call in calls)
    return next((problem for problem in problems if problem), None)


def _cases(budget_error: StudentFunction) -> list[CheckCase]:
    def small_text_fits() -> str | None:
        return _first(
            budget_error, [('"ok"', 10, None), ('{"a": [1, 2]}', DEFAULT_MAX_RESULT_BYTES, None)]
        )

    def exact_boundary() -> str | None:
        text = '{"a": [1, 2]}'  # 13 bytes, JSON syntax included
        return _first(
            budget_error, [(text, 13, None), (text, 12, RESULT_TOO_LARGE), (text, 14, None)]
        )

    def bytes_not_characters() -> str | None:
        # "東京" as JSON text: 4 characters, 8 bytes.
        return _first(
            budget_error,
            [('"東京"', 8, None), ('"東京"', 7, RESULT_TOO_LARGE), ('"東京"', 4, RESULT_TOO_LARGE)],
        )

    def each_character_length() -> str | None:
        calls: list[tuple[str, int, str | None]] = []
        for char, cost in CHARACTER_COSTS:
            calls.append((f'"{char}"', cost + 2, None))
            calls.append((f'"{char}"', cost + 1, RESULT_TOO_LARGE))
        return _first(budget_error, calls)

    def zero_budget() -> str | None:
        return _first(
            budget_error, [("", 0, None), ("0", 0, RESULT_TOO_LARGE), ('""', 1, RESULT_TOO_LARGE)]
        )

    def lone_surrogate() -> str | None:
        return _first(
            budget_error,
            [
                ('"\ud800"', DEFAULT_MAX_RESULT_BYTES, INVALID_RESULT),
                ('["ok", "\udfff"]', 100, INVALID_RESULT),
            ],
        )

    return [
        CheckCase("Text within the budget fits (None)", small_text_fits),
        CheckCase(
            "A size equal to the budget fits; one byte more is result_too_large", exact_boundary
        ),
        CheckCase("The budget counts UTF-8 bytes, not characters", bytes_not_characters),
        CheckCase(
            "Characters of 1, 2, 3 and 4 bytes are each counted in full", each_character_length
        ),
        CheckCase("A budget of 0 bytes admits only the empty text", zero_budget),
        CheckCase("Text that UTF-8 cannot encode is invalid_result", lone_surrogate),
    ]


def check_budget_error(
    budget_error: StudentFunction, *, explain_name: Explainer | None = None
) -> CheckReport:
    """Check a student's `budget_error` case by case; return the CheckReport."""
    return run_checks("budget_error", _cases(budget_error), explain_name=explain_name)
