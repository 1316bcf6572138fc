"""Step 2's explorer shows the student's code for each exception and warns about leaked text."""

from builders import parts, reference, unfinished

from course.widgets.error_codes import EXAMPLES, error_codes_explorer

pytestmark = []


def label_index(start):
    return next(i for i, (label, _, _) in enumerate(EXAMPLES) if label.startswith(start))


def test_every_example_gets_the_expected_code_and_no_leak_warning():
    found = parts(error_codes_explorer({"failure_code": reference("failure_code")}))
    for index, (_, _, expected) in enumerate(EXAMPLES):
        found["failure-pick"].value = index
        assert f"&#x27;{expected}&#x27;" in found["failure-code"].value
        assert "✓ the course's code" in found["failure-code"].value
        assert "Leak" not in found["failure-leak"].value


def test_returning_the_message_of_the_usage_stats_key_error_shows_a_red_leak_warning():
    found = parts(error_codes_explorer({"failure_code": lambda exc: f"tool_failed: {exc}"}))
    found["failure-pick"].value = label_index("KeyError from usage_stats")
    assert "⚠ Leak" in found["failure-leak"].value
    assert "PRIVATE-7f3a" in found["failure-leak"].value
    assert "color:#b00020" in found["failure-leak"].value


def test_reading_the_text_of_an_unprintable_exception_is_reported_not_raised():
    found = parts(error_codes_explorer({"failure_code": lambda exc: str(exc)}))
    found["failure-pick"].value = label_index("an InvalidInputError whose str() raises")
    assert "raised <code>RuntimeError</code>" in found["failure-code"].value


def test_an_unfinished_failure_code_shows_a_message():
    found = parts(error_codes_explorer({"failure_code": unfinished}))
    assert "not finished yet" in found["failure-code"].value
    assert found["failure-leak"].value == ""
