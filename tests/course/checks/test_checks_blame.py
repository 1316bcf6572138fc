"""Step 7's misses are put down to the rule their envelope breaks, whatever else is unfinished."""

import pytest

from course.checks.blame import envelope_categories

pytestmark = []


def envelope(ok, value=None, error=None, request_id=1):
    return {"id": request_id, "ok": ok, "value": value, "error": error}


@pytest.mark.parametrize(
    ("given", "expected_error", "categories"),
    [
        ([], None, ("envelope",)),  # not a dict: rule 2
        ({"id": 1, "ok": True, "value": 1}, None, ("envelope",)),  # a key short: rule 2
        (envelope(True, request_id="1"), None, ("envelope",)),  # the id's type: rule 1
        (envelope(1, value=1), None, ("envelope",)),  # ok not a bool: rule 2
        (envelope(False, error="tool_failed"), "invalid_input", ("error_codes",)),
        (envelope(False, error="invalid_result"), None, ("vocabulary",)),  # a valid value refused
        (envelope(True, value="cut"), "result_too_large", ("unicode_boundary",)),
        (
            envelope(False, error="invalid_result"),
            "result_too_large",
            ("unicode_boundary", "vocabulary"),
        ),
        (envelope(False, error="tool_failed: boom"), "tool_failed", ("envelope",)),  # not a code
        (envelope(False, value=1, error="not_found"), "not_found", ("envelope",)),  # rule 2
        (envelope(True, value=1), None, ("ownership",)),  # a value that is not the decoded text
    ],
)
def test_a_wrong_envelope_is_put_down_to_the_rule_it_breaks(given, expected_error, categories):
    assert envelope_categories(given, 1, expected_error) == categories
