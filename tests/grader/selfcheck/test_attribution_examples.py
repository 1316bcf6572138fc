"""Each example of CONTRACT.md's attribution rule is a fixture the self-check holds to it.

The table pairs every example sentence with a buggy fixture that does exactly that; the
fixture's expectation (its folder, or exceptions.toml) must name the categories the sentence
names, and `python -m grader selfcheck` (test_selfcheck.py) grades each one against it.
"""

import pytest

from grader.paths import PROJECT_ROOT
from grader.selfcheck.expectations import load_expectations

pytestmark = []

# (the example, as CONTRACT.md words it; its fixture; the categories that lose points)
EXAMPLES = (
    (
        "raising for a handler's tuple breaks rule 8",
        "vocabulary/raises-on-tuple-result",
        {"error_codes", "vocabulary"},
    ),
    (
        "Raising for a value that is too large",
        "unicode_boundary/raises-past-one-mebibyte",
        {"error_codes", "unicode_boundary"},
    ),
    (
        "A failure whose `value` carries the exception's message",
        "envelope/exception-args-in-failure-value",
        {"envelope", "redaction"},
    ),
    (
        "A success whose falsy value comes back as `None`",
        "envelope/falsy-value-becomes-none",
        {"envelope", "ownership"},
    ),
    (
        "Not calling a handler that is in the table (an empty name taken for a missing one)",
        "error_codes/empty-tool-name-is-unknown-tool",
        {"error_codes", "no_retry"},
    ),
    ("An id stripped of its spaces", "envelope/strips-whitespace-from-str-ids", {"envelope"}),
    ("a retry breaks rule 7 alone", "no_retry/retries-not-found-once", {"no_retry"}),
    ("a byte count in characters", "unicode_boundary/counts-code-points", {"unicode_boundary"}),
    (
        "A code read from an exception's message",
        "error_codes/code-from-message-text",
        {"error_codes", "redaction"},
    ),
    (
        "Raising for an exception whose `str()` raises breaks rule 8 and rule 3",
        "error_codes/str-of-exception-concatenates-message",
        {"error_codes", "redaction"},
    ),
    (
        "Changing the request while a `KeyboardInterrupt` passes through breaks rule 9 alone",
        "envelope/request-changed-on-base-path",
        {"envelope"},
    ),
)
CONTRACT = PROJECT_ROOT / "docs" / "CONTRACT.md"


@pytest.fixture(scope="module")
def expected():
    return {
        e.path.with_suffix("").as_posix().split("buggy/", 1)[-1]: e for e in load_expectations()
    }


@pytest.mark.parametrize(("sentence", "fixture", "categories"), EXAMPLES)
def test_each_example_of_the_attribution_rule_loses_exactly_its_categories(
    expected, sentence, fixture, categories
):
    contract = " ".join(CONTRACT.read_text(encoding="utf-8").split())
    assert sentence in contract, "the example is no longer in CONTRACT.md"
    expectation = expected[fixture]
    assert expectation.score == "fails"
    assert set(expectation.must_fail) == categories
