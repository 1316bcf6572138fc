"""Hypothesis strategies for each family of generated scenarios: the input space rule by rule.

Each family draws the inputs one rule is about and keeps the rest plain, so a scenario that
fails says which rule broke: ids of every allowed type on every path, tool tables whose names
differ only in form, an exception class zoo, values inside and outside the vocabulary at any
depth, budgets around each value's exact size, handlers that change or hand out their objects,
and handlers that fail once.
"""

import json
from typing import Any

from hypothesis import strategies as st

from grader.hidden.probes import TOOL
from grader.sandbox.handlers import Scenario
from grader.sandbox.inside.picture import tag
from grader.sandbox.inside.protocol import ToolSpec

# Characters a lenient submission changes without meaning to: whitespace it strips, combining
# and compatibility characters Unicode normalisation folds, controls, DEL and C1 controls that
# encoders escape, text beyond the BMP (a surrogate pair in UTF-16), and JSON's own syntax.
WHITESPACE = " \t\n\r\x0b\x0c\x1c\x85\xa0\u2003\u2028\u3000"
FOLDED = "e\u0301\u00e9A\u030a\u00c5\u212b\ufb01\u00b2\u2168\uff21\u2126\u03a9\u0130\u00df"
CONTROLS = "\x00\x01\x1b\x7f\x80\x9f\u200b\ufeff"
BEYOND_BMP = "\U0001f600\U0001d518\U0002070e"
SYNTAX = '"\\/{}[],:.$'
ODD_CHARACTERS = WHITESPACE + FOLDED + CONTROLS + BEYOND_BMP + SYNTAX + "aZ09-_"

odd_text = st.text(alphabet=st.sampled_from(ODD_CHARACTERS), max_size=8)
any_text = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=10)
text = st.one_of(odd_text, any_text)
padded = st.builds(
    lambda left, core, right: left + core + right,
    st.sampled_from(["", *WHITESPACE]),
    st.sampled_from(["req", "0", "e\u0301", "\u00e9", "\ufb01", "\U0001f600", ""]),
    st.sampled_from(["", *WHITESPACE]),
)
EDGE_INTS = [0, -1, 1, 2**31, 2**53, 2**53 + 1, -(2**53) - 1, 2**63, -(2**63) - 1, 2**64 + 1]
big_int = st.one_of(
    st.sampled_from([*EDGE_INTS, 10**40, -(10**40), 10**300]),
    st.integers(min_value=-(2**80), max_value=2**80),
)
request_id = st.one_of(
    padded,
    text,
    st.sampled_from(["", "0", "00", "-1", "1.0", "true", "null", "None", "\ud800", "a\udfff"]),
    big_int,
)
EDGE_FLOATS = [-0.0, 0.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.1, 1 / 3]
json_float = st.one_of(
    st.sampled_from([*EDGE_FLOATS, 2.0**53, -(2.0**63), 1e16, 123456789.12345678]),
    st.floats(allow_nan=False, allow_infinity=False),
)
scalar = st.one_of(st.none(), st.booleans(), big_int, json_float, text)
key = st.one_of(text, st.sampled_from(["", "id", "ok", "a.b", "$ref", "__proto__", "\x7f"]))
json_value = st.recursive(
    scalar,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(key, children, max_size=4)
    ),
    max_leaves=10,
)


@st.composite
def nested(draw: st.DrawFn, value: st.SearchStrategy[Any] = json_value) -> object:
    """A value wrapped in lists and dicts up to 60 levels deep (the contract's 50 is ordinary)."""
    result = draw(value)
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 3, 20, 49, 60]))):
        result = [result] if draw(st.booleans()) else {draw(key): result}
    return result


def returns(value: object) -> ToolSpec:
    """A tool returning a new copy of `value` (probes.returns, without its import cycle)."""
    return {"does": "return", "value": tag(value)}


def scenario(request_id: object, tools: dict[str, ToolSpec], **more: Any) -> Scenario:
    """A scenario calling the tool `probe` (or `more["tool"]`) with plain arguments."""
    name = more.pop("tool", TOOL)
    request = {"id": request_id, "tool": name, "arguments": more.pop("arguments", {"q": 1})}
    built: Scenario = {"request": request, "tools": tools, **more}  # type: ignore[typeddict-item]
    return built


def encoded_size(value: object) -> int:
    """The contract's size of a value inside the vocabulary."""
    return len(json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8"))
