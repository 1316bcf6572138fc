"""Unicode boundary: the byte budget of rule 4, measured exactly, and result_too_large."""

import pytest

from grader.hidden.probes import describe_raise, encoded_size, returns, scenario

pytestmark = pytest.mark.category("unicode_boundary")

VALUES = {
    "ascii": "plain text",
    "two_byte": "café olé ñ",
    "three_byte": "€ 中文 ‽",
    "four_byte": "😀 𝄞 🚀",
    "escaped": 'quote " backslash \\ newline \n tab \t',
    "control": "bell \x07 nul \x00 escape \x1b",
    "line_separator": "a\u2028b\u2029c",
    "dict": {"a": 1, "b": [1, 2], "c": {"d": "é"}},
    "numbers": [1e16, -0.5, 10**20, 1.0, 0],
}
DEFAULT_BUDGET = 4096


def outcome(observation):
    """Return (ok, error) of the envelope, or a description of why there is none."""
    if observation.envelope is None:
        return describe_raise(observation)
    return observation.field("ok"), observation.field("error")


@pytest.mark.parametrize("value", VALUES.values(), ids=VALUES.keys())
def test_size_equal_to_budget_passes(submission, value):
    """A result whose encoded size equals max_result_bytes succeeds."""
    probe = scenario(returns(value), max_result_bytes=encoded_size(value))
    assert outcome(submission.call(probe)) == (True, None)


@pytest.mark.parametrize("value", VALUES.values(), ids=VALUES.keys())
def test_one_byte_over_budget_is_too_large(submission, value):
    """A result one byte larger than max_result_bytes gives result_too_large."""
    probe = scenario(returns(value), max_result_bytes=encoded_size(value) - 1)
    assert outcome(submission.call(probe)) == (False, "result_too_large")


def text_of_size(size, unit="a"):
    """Return a string whose JSON text is exactly `size` bytes, quotes included."""
    width = len(unit.encode("utf-8"))
    count, rest = divmod(size - 2, width)
    return unit * count + "b" * rest


@pytest.mark.parametrize("unit", ["a", "é", "😀"])
def test_default_budget_is_4096_bytes(submission, unit):
    """Without max_result_bytes, a result of exactly 4096 bytes succeeds."""
    value = text_of_size(DEFAULT_BUDGET, unit)
    assert outcome(submission.call(scenario(returns(value)))) == (True, None)


@pytest.mark.parametrize("unit", ["a", "€", "😀"])
def test_default_budget_rejects_4097_bytes(submission, unit):
    """Without max_result_bytes, a result of 4097 bytes gives result_too_large."""
    value = text_of_size(DEFAULT_BUDGET + 1, unit)
    assert outcome(submission.call(scenario(returns(value)))) == (False, "result_too_large")


@pytest.mark.parametrize("value", [None, "", []], ids=["none", "empty_text", "empty_list"])
def test_zero_budget_rejects_every_value(submission, value):
    """With max_result_bytes 0, even the smallest result gives result_too_large."""
    probe = scenario(returns(value), max_result_bytes=0)
    assert outcome(submission.call(probe)) == (False, "result_too_large")


def test_large_budget_accepts_large_value(submission):
    """A large budget accepts a large result that fits it."""
    value = {"rows": [{"n": n, "name": "é" * 10} for n in range(300)]}
    probe = scenario(returns(value), max_result_bytes=encoded_size(value))
    assert outcome(submission.call(probe)) == (True, None)
