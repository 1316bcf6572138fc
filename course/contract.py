"""The contract's constants, in one place: failure codes, envelope keys, budget and categories.

docs/CONTRACT.md is the rule book; this module is the part of it that code reads. The lessons'
checks and explorers, the grader's hidden tests and its reports all take these names from here,
so a code, a key or a category is spelled once. It is copied into the grading sandbox with
course/supplied.py, so it uses nothing but the standard library.
"""

from dataclasses import dataclass
from typing import Final

# The seven failure codes, in the order of CONTRACT.md's table.
UNKNOWN_TOOL: Final = "unknown_tool"
INVALID_INPUT: Final = "invalid_input"
PERMISSION_DENIED: Final = "permission_denied"
NOT_FOUND: Final = "not_found"
TOOL_FAILED: Final = "tool_failed"
INVALID_RESULT: Final = "invalid_result"
RESULT_TOO_LARGE: Final = "result_too_large"
FAILURE_CODES: Final = (
    UNKNOWN_TOOL,
    INVALID_INPUT,
    PERMISSION_DENIED,
    NOT_FOUND,
    TOOL_FAILED,
    INVALID_RESULT,
    RESULT_TOO_LARGE,
)
# The codes an exception raised by a handler can get: decided by its class alone.
EXCEPTION_CODES: Final = (INVALID_INPUT, PERMISSION_DENIED, NOT_FOUND, TOOL_FAILED)

# The keys of every envelope `invoke_tool` returns, exactly these four, in the contract's order.
ENVELOPE_KEYS: Final = ("id", "ok", "value", "error")

# `max_result_bytes` when the caller passes none: the UTF-8 bytes a value's JSON text may take.
DEFAULT_MAX_RESULT_BYTES: Final = 4096


def falsy_values() -> tuple[object, ...]:
    """Return, made afresh, the values rule 2 counts as successes though Python calls them false."""
    return (None, False, 0, "", [], {})


# The nine rules, by number, as CONTRACT.md names them.
RULES: Final = {
    1: "Correlation",
    2: "Shape",
    3: "Redaction",
    4: "Byte budget",
    5: "Ownership in",
    6: "Ownership out",
    7: "No retry",
    8: "No exception for a handler",
    9: "No side effects",
}


@dataclass(frozen=True)
class Category:
    """A grading category: its name, the rules and failure codes it judges, and what it asks."""

    name: str
    rules: tuple[int, ...]
    codes: tuple[str, ...]
    asks: str


# The seven grading categories, in the order every report lists them. Their names are part of
# the contract: every grades.csv has one column per category.
CATEGORY_TABLE: Final = (
    Category(
        "envelope",
        (1, 2, 9),
        (),
        "one new four-key envelope under the request's own id, ok a real bool, inputs unchanged",
    ),
    Category(
        "error_codes",
        (8,),
        (UNKNOWN_TOOL, *EXCEPTION_CODES),
        "the failure code of each exception by its class, and an envelope whatever a handler does",
    ),
    Category("redaction", (3,), (), "no part of an exception reaches the envelope"),
    Category("vocabulary", (), (INVALID_RESULT,), "a value outside the JSON vocabulary is refused"),
    Category(
        "unicode_boundary",
        (4,),
        (RESULT_TOO_LARGE,),
        "the budget counts UTF-8 bytes of the JSON text; a size equal to it fits",
    ),
    Category(
        "ownership",
        (5, 6),
        (),
        "arguments copied deeply in, a fresh decoded value out",
    ),
    Category(
        "no_retry",
        (7,),
        (),
        "the handler runs exactly once per call, and never for an unknown tool",
    ),
)
CATEGORIES: Final = tuple(category.name for category in CATEGORY_TABLE)
# The four exception codes count as one part of error_codes, as the contract's table groups them.
EXCEPTION_CODES_PART: Final = "exception codes"


def parts_of(category: Category) -> tuple[str, ...]:
    """Return the rules and codes a category judges, each worth an equal share of its points.

    A rule is named by its number ("rule 1"), a code by itself; the four exception codes are
    one part, however many tests judge each rule or code.
    """
    rules = tuple(f"rule {rule}" for rule in category.rules)
    codes = [code for code in category.codes if code not in EXCEPTION_CODES]
    if set(EXCEPTION_CODES) <= set(category.codes):
        codes.append(EXCEPTION_CODES_PART)
    return rules + tuple(codes)


def category_named(name: str) -> Category:
    """Return the category called `name`; raise KeyError for a name the contract does not have."""
    for category in CATEGORY_TABLE:
        if category.name == name:
            return category
    raise KeyError(f"{name!r} is not a grading category of the contract: {', '.join(CATEGORIES)}")
