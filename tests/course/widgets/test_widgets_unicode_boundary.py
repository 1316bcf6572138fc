"""Step 4's byte-budget explorer updates its size and verdict on every change of text or budget."""

import re

import ipywidgets as widgets
import pytest
from builders import parts, reference_namespace, unfinished

from course.widgets.unicode_boundary import unicode_boundary_explorer

pytestmark = []

# The reference answers, as the solution notebooks define them.
REFERENCE = reference_namespace()
encode_json = REFERENCE["encode_json"]
budget_error = REFERENCE["budget_error"]


def first_integer(html_text):
    return int(re.search(r"\d+", html_text).group())


@pytest.fixture
def explorer():
    return unicode_boundary_explorer({"encode_json": encode_json, "budget_error": budget_error})


def test_the_explorer_has_its_classed_parts_and_starts_at_tokyo_with_budget_8(explorer):
    found = parts(explorer)
    assert "budget-explorer" in explorer._dom_classes
    assert isinstance(found["budget-text"], widgets.Text)
    assert found["budget-text"].value == "東京"
    budget = found["budget-bytes"]
    assert isinstance(budget, widgets.BoundedIntText)  # a slider's handle has no name to read
    assert (budget.min, budget.max, budget.value, budget.continuous_update) == (0, 64, 8, True)
    assert found["budget-size"].value == "8 bytes (budget 8)"
    assert "fits" in found["budget-verdict"].value
    assert "東京" in found["budget-json"].value


def test_typing_an_emoji_updates_size_json_and_table(explorer):
    found = parts(explorer)
    found["budget-text"].value = "🚀"
    assert found["budget-size"].value == "6 bytes (budget 8)"
    assert "🚀" in found["budget-json"].value
    assert "f0 9f 9a 80" in found["budget-chars"].value


def test_setting_the_budget_below_the_size_turns_the_verdict_to_result_too_large(explorer):
    found = parts(explorer)
    found["budget-bytes"].value = 5
    assert first_integer(found["budget-size"].value) == 8
    assert "budget 5" in found["budget-size"].value
    assert "result_too_large" in found["budget-verdict"].value
    assert "fits" not in found["budget-verdict"].value
    found["budget-bytes"].value = 8
    assert "fits" in found["budget-verdict"].value


def test_escaped_characters_are_counted_as_written(explorer):
    found = parts(explorer)
    found["budget-text"].value = 'say "hi"'
    assert first_integer(found["budget-size"].value) == len('"say \\"hi\\""')
    assert "result_too_large" in found["budget-verdict"].value


def test_a_lone_surrogate_is_invalid_result_and_stays_printable(explorer):
    found = parts(explorer)
    found["budget-text"].value = "\ud800"
    assert "invalid_result" in found["budget-verdict"].value
    assert "\\ud800" in found["budget-json"].value
    for part in found.values():
        if isinstance(part, widgets.HTML):
            part.value.encode("utf-8")  # would raise if a raw surrogate reached the page


def test_unfinished_functions_fall_back_to_json_dumps_and_say_so():
    found = parts(
        unicode_boundary_explorer({"encode_json": unfinished, "budget_error": unfinished})
    )
    assert found["budget-size"].value == "8 bytes (budget 8)"
    assert "not finished yet" in found["budget-verdict"].value
    assert "encode_json is not finished yet" in found["budget-note"].value
    found["budget-text"].value = "é"
    assert found["budget-size"].value == "4 bytes (budget 8)"


def test_a_buggy_budget_error_is_reported_not_raised():
    def crashing(text, max_result_bytes):
        return len(text) / 0

    found = parts(unicode_boundary_explorer({"encode_json": encode_json, "budget_error": crashing}))
    assert "raised ZeroDivisionError" in found["budget-verdict"].value
    found["budget-bytes"].value = 3
    assert "budget 3" in found["budget-size"].value


def counts_code_points(text, max_result_bytes):
    """A buggy budget_error: characters instead of UTF-8 bytes."""
    return "result_too_large" if len(text) > max_result_bytes else None


def test_a_buggy_budget_error_is_never_praised():
    found = parts(
        unicode_boundary_explorer({"encode_json": encode_json, "budget_error": counts_code_points})
    )
    found["budget-bytes"].value = 7  # "東京" is 4 characters but 8 bytes
    verdict = found["budget-verdict"].value
    assert "✓" not in verdict and "says it fits" in verdict
    assert "8 bytes is more than the budget of 7" in verdict
    found["budget-bytes"].value = 8
    assert "✓ fits" in found["budget-verdict"].value  # right by accident here, and so shown


def test_the_budget_grows_to_reach_the_size_of_long_text(explorer):
    found = parts(explorer)
    found["budget-text"].value = "東京" * 40  # 242 bytes of JSON
    assert found["budget-bytes"].max >= 242
    found["budget-bytes"].value = 242
    assert "fits" in found["budget-verdict"].value
    found["budget-text"].value = "a"
    assert found["budget-bytes"].max >= 242, "the reach never shrinks under the student's hand"
