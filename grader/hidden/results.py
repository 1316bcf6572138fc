"""The results the hidden tests' handlers return, by the category whose rule decides them.

One table per verdict, shared by every category that returns such a value: when a test of one
category steps aside because a submission refused (or raised for) a value, the same value is a
case of the category that decides it, so stepping aside never makes a bug free. Every value a
test anywhere returns and expects to succeed is in ACCEPTED; every value outside the vocabulary
is in OUTSIDE or made by a MADE maker.
"""

import math
import sys

from course.contract import DEFAULT_MAX_RESULT_BYTES


def nested(levels: int, bottom: object) -> object:
    """Return `bottom` inside `levels - 1` lists."""
    value = bottom
    for _ in range(levels - 1):
        value = [value]
    return value


def text_of_size(size: int, unit: str = "a") -> str:
    """Return a string whose JSON text is exactly `size` bytes, quotes included."""
    width = len(unit.encode("utf-8"))
    count, rest = divmod(size - 2, width)
    return unit * count + "b" * rest


LEAF = {"leaf": True}  # the bottom of the ownership category's deep values
ONE = {"n": 1}  # the envelope category's plain success
DEEP_50 = nested(50, LEAF)  # rule 6: "a value nested 50 levels deep is ordinary and succeeds"
PAIR = [1, 2]
ROWS = {"rows": [{"n": n, "name": "é" * 10} for n in range(100)]}
LARGE = ["a" * 100_000] * 11  # 1.1 MB: beyond a 1 MiB cap of a submission's own
ROSTER = {"team": "blue", "members": [{"name": "Ada", "shifts": ["mon", "tue"]}]}
ROWS_AND_NEXT = {"rows": [{"id": 1, "tags": ["x"]}], "next": [2]}
NESTED_ARGUMENTS = {"filter": {"tags": ["a", "b"], "range": {"low": 1, "high": 2.5}}}
# Arguments a handler changes in the ownership tests; the envelope's rule 9 test asks each with a
# handler that changes nothing, so ownership can tell invoke_tool's own changes from a leak.
ARGUMENT_SETS = {
    "flat": ("for flat arguments", {"user": "u-1", "limit": 3}),
    "nested": ("for nested arguments", NESTED_ARGUMENTS),
    "lists_of_dicts": (
        "for lists of dicts",
        {"rows": [{"id": 1, "cells": [1, 2]}, {"id": 2, "cells": []}]},
    ),
    "deep": (
        "for arguments nested seven levels deep",
        {"a": {"b": {"c": {"d": {"e": [[["leaf"]]]}}}}},
    ),
    "empty": ("for empty arguments {}", {}),
}
UNITS = {"ascii": "a", "two_byte": "é", "three_byte": "€", "four_byte": "😀"}
DEFAULT_BUDGET = DEFAULT_MAX_RESULT_BYTES

# Whether json.dumps refuses an int of 5001 digits depends on the Python release: the limit on
# turning ints into text came with 3.11.0rc2 (and 3.10.7), and a worker, started with -I, keeps
# its default of 4300 digits. Where the limit is missing (3.11.0rc1, say) such an int encodes,
# so it is no value outside the vocabulary there, and no reference may lose a point for it.
LONG_INTS_REFUSED = hasattr(sys, "get_int_max_str_digits")
TOO_LONG_TO_CONVERT = (
    {"huge_int": ("for an int too long to convert to text", {"n": 10**5000})}
    if LONG_INTS_REFUSED
    else {}
)
OUTSIDE = {
    "tuple": ("for a tuple inside a dict", {"pair": (1, 2)}),
    "top_tuple": ("for a tuple as the whole result", (1, 2)),
    "top_set": ("for a set as the whole result", {"a"}),
    "set": ("for a set inside a dict", {"tags": {"a"}}),
    "frozenset": ("for a frozenset inside a list", [frozenset({1})]),
    "nan": ("for NaN", {"ratio": math.nan}),
    "infinity": ("for an infinity", [1.0, math.inf]),
    "negative_infinity": ("for minus infinity as the whole result", -math.inf),
    "int_key": ("for a dict with an int key", {1: "one"}),
    "bool_key": ("for a dict with a bool key", {True: "yes"}),
    "none_key": ("for a dict with a None key", {None: "nothing"}),
    "tuple_key": ("for a dict with a tuple key", {(1, 2): "pair"}),
    "deep_nan": ("for NaN nested deep inside", {"a": [{"b": [{"c": math.nan}]}]}),
    "lone_surrogate": ("for a string holding a lone high surrogate", {"text": "abc\ud800"}),
    "escaped_surrogate": ("for a lone surrogate from the U+DC80–U+DCFF range", "x\udc80y"),
    "low_surrogate": ("for a lone low surrogate", ["\udfff"]),
    "reversed_pair": ("for two surrogates in the wrong order", "\udc00\ud800"),
    "surrogate_key": ("for a dict key holding a lone surrogate", {"\udfff": 1}),
    "escaped_surrogate_key": ("for a key with a surrogate from U+DC80–U+DCFF", {"\udcff": 1}),
    **TOO_LONG_TO_CONVERT,
}

# Text that cannot become UTF-8 has no size under rule 4, so it is invalid_result at any budget.
UNENCODABLE_AND_LONG = "x" * 100 + "\ud800"

MADE = {
    "int_enum": "for an IntEnum member",
    "list_subclass": "for a list subclass",
    "str_subclass": "for a str subclass",
    "str_subclass_key": "for a dict key that is a str subclass",
    "str_subclass_top": "for a str subclass as the whole result",
    "float_subclass": "for a float subclass",
    "ordered_dict": "for an OrderedDict",
    "default_dict": "for a defaultdict",
    "bytes": "for bytes",
    "bytearray": "for a bytearray",
    "complex": "for a complex number",
    "decimal": "for a Decimal",
    "object": "for a plain object",
    "truthless": "for an object whose truth value raises",
    "incomparable": "for an object that raises when compared",
    "exception": "for an exception object",
    "list_cycle": "for a list that contains itself",
    "dict_cycle": "for a dict that contains itself",
}

# Values inside the vocabulary, each worded for the case name a student sees.
ACCEPTED = {
    "nested": ("for nested lists and dicts", {"a": [1, 2.5, True, None, {"b": ["c"]}]}),
    "large_int": ("for a 300-digit int", {"n": 10**300}),
    "larger_int": ("for a 401-digit int, beyond any float", {"n": 10**400}),
    "huge_int": ("for a 4001-digit int, still short enough to convert", [-(10**4000)]),
    "negative_zero": ("for -0.0", [-0.0]),
    "extreme_float": ("for the largest and smallest floats", [1e308, 5e-324]),
    "numbers": ("for big and negative numbers", [1e16, -0.5, 10**20, 0]),
    "empty_key": ('for an empty key ""', {"": ""}),
    "astral_text": ("for emoji and a NUL character", {"emoji": "😀𝄞", "nul": "\x00"}),
    "control": ("for control characters", "bell \x07 escape \x1b delete \x7f"),
    "escapes": ("for quotes, backslashes and newlines", 'quote " backslash \\ newline \n'),
    "private_use": ("for private-use and non-character code points", "\ue000\uffff\U0010ffff"),
    "valid_pair": ("for a character written as a surrogate pair", "\U0001f600"),
    "top_scalar": ("for a bare number as the whole result", 3.25),
    "deep_50": ("for a value nested 50 levels deep", nested(50, "bottom")),
    "deep_45_dict": ("for a dict at the bottom of 45 levels of lists", nested(45, LEAF)),
    "deep_50_dict": ("for a dict at the bottom of 50 levels of lists", DEEP_50),
    "leaf": ("for a one-key dict holding True", LEAF),
    "one": ("for a one-key dict holding 1", ONE),
    "pair": ("for the list [1, 2]", PAIR),
}

# The unicode_boundary category's values, measured against budgets of their exact size.
MEASURED = {
    "ascii": ("for plain ASCII text", "plain text"),
    "two_byte": ("for text of 2-byte characters", "café olé ñ"),
    "three_byte": ("for text of 3-byte characters", "€ 中文 ‽"),
    "four_byte": ("for text of 4-byte characters (emoji)", "😀 𝄞 🚀"),
    "escaped": (
        "for text with quotes, backslashes and newlines",
        'quote " backslash \\ newline \n tab \t',
    ),
    "control": ("for text with control characters", "bell \x07 nul \x00 escape \x1b"),
    "line_separator": ("for the line and paragraph separators", "a\u2028b\u2029c"),
    "dict": (
        "for a dict (JSON's spaces after , and : count)",
        {"a": 1, "b": [1, 2], "c": {"d": "é"}},
    ),
    "numbers": ("for a list of numbers", [1e16, -0.5, 10**20, 1.0, 0]),
    "nested_text": ("for emoji inside nested lists", [["😀"], {"k": ["é€"]}]),
}
# The ownership category's values, copied faithfully with their exact types.
COPIED = {
    "types": (
        "for ints, floats, bools, None and text side by side",
        {"int": 1, "float": 1.0, "bool": True, "none": None, "text": "1"},
    ),
    "nested": (
        "for nested rows",
        {"rows": [{"id": 1, "tags": ["x"]}, {"id": 2, "tags": []}], "total": 2.0},
    ),
    "list": ("for a list of falsy items", [0, 0.0, False, "", [], {}]),
    "text": ("for accented text and emoji", "é € 😀"),
    "whole_float": ("for a float with no fraction", 3.0),
    "true": ("for True", True),
}
SHAPES = {
    "dict": ("for a dict holding lists and dicts", {"rows": [[1, 2], {"a": [3]}]}),
    "list": ("for a list holding lists and dicts", [[1], {"b": {"c": []}}]),
}
SMALLEST: dict[str, tuple[str, object]] = {
    "none": ("for None (4 bytes)", None),
    "empty_text": ('for "" (2 bytes)', ""),
    "empty_list": ("for [] (2 bytes)", []),
    "zero": ("for 0 (1 byte)", 0),
}
# Every accepted value of every category, for the rule-8 and vocabulary checks that back them.
ACCEPTED |= {f"unicode_{k}": v for k, v in MEASURED.items()}
ACCEPTED |= {f"copied_{k}": v for k, v in COPIED.items()}
ACCEPTED |= {f"shape_{k}": v for k, v in SHAPES.items()}
ACCEPTED |= {f"smallest_{k}": v for k, v in SMALLEST.items()}
# The envelope's falsy results that no other table holds as a whole result.
ACCEPTED |= {
    "false": ("for False as the whole result", False),
    "zero_float": ("for 0.0 as the whole result", 0.0),
    "empty_dict": ("for {} as the whole result", {}),
}
ACCEPTED |= {
    f"text_{name}": (
        f"for a 4097-byte text of {name.replace('_', '-')} characters",
        text_of_size(DEFAULT_BUDGET + 1, unit),
    )
    for name, unit in UNITS.items()
}
ACCEPTED |= {
    f"budget_text_{name}": (
        f"for a 4096-byte text of {name.replace('_', '-')} characters",
        text_of_size(DEFAULT_BUDGET, unit),
    )
    for name, unit in UNITS.items()
}
ACCEPTED |= {
    "rows": ("for 100 rows of accented text", ROWS),
    "roster": ("for a roster of members and shifts", ROSTER),
    "rows_and_next": ("for rows with tags and a next page", ROWS_AND_NEXT),
    "nested_arguments": ("for nested filters, as a tool's arguments", NESTED_ARGUMENTS),
    "tiny": ("for a 1-byte result", 7),
}
