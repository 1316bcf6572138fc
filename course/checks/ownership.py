"""Visible checks for step 5: `copy_arguments` (ownership in) and `fresh_value` (ownership out).

Arguments hold only JSON values, so `copy.deepcopy` and a JSON round trip are equally right for
`copy_arguments`; the checks compare with `==` and exact types, never with key order.
"""

import copy
from typing import Any

from course.checks.harness import (
    CheckCase,
    CheckReport,
    Explainer,
    StudentFunction,
    run_checks,
    show,
)


def exact_type_problem(expected: Any, actual: Any, where: str = "the value") -> str | None:
    """Return a sentence naming the first place where `actual` differs from `expected`, or None.

    Compares values and their exact types at every depth, because `True == 1` and `1.0 == 1`
    in Python while JSON keeps them apart. Dict key order is ignored.
    """
    if type(actual) is not type(expected):
        return (
            f"At {where} I expected {show(expected)} (a {type(expected).__name__}) "
            f"but got {show(actual)} (a {type(actual).__name__})."
        )
    if isinstance(expected, dict):
        if set(actual) != set(expected):
            return f"At {where} I expected the keys {sorted(expected)} but got {sorted(actual)}."
        for key in expected:
            problem = exact_type_problem(expected[key], actual[key], f"{where}[{key!r}]")
            if problem:
                return problem
        return None
    if isinstance(expected, list):
        if len(actual) != len(expected):
            return f"At {where} I expected {len(expected)} items but got {len(actual)}."
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            problem = exact_type_problem(want, got, f"{where}[{index}]")
            if problem:
                return problem
        return None
    if actual != expected:
        return f"At {where} I expected {show(expected)} but got {show(actual)}."
    return None


def _nested_arguments() -> dict[str, Any]:
    return {
        "team_id": "t-100",
        "filters": {"roles": ["lead", "member"], "since": {"year": 2024}},
        "notes": [],
    }


def _copy_is_equal(copy_arguments: StudentFunction) -> str | None:
    arguments = _nested_arguments()
    result = copy_arguments(arguments)
    problem = exact_type_problem(_nested_arguments(), result, "the copy")
    if problem:
        return f"{problem}\nThe copy should hold exactly what the arguments hold."
    if arguments != _nested_arguments():
        return "Making the copy changed the arguments themselves; leave them as they are."
    return None


def _copy_is_new_dict(copy_arguments: StudentFunction) -> str | None:
    arguments = {"user_id": "u-001"}
    if copy_arguments(arguments) is arguments:
        return (
            "`copy_arguments` returned the very same dict it was given, so a handler that "
            "changes its arguments would change the accepted request."
        )
    return None


def _copy_is_deep(copy_arguments: StudentFunction) -> str | None:
    arguments = _nested_arguments()
    result = copy_arguments(arguments)
    result["filters"]["roles"].append("guest")
    result["filters"]["since"]["year"] = 1999
    result["notes"].append("changed by the handler")
    if arguments != _nested_arguments():
        return (
            "After I changed the nested lists and dicts of the copy, the original arguments "
            f"became {show(arguments)}.\nThe outer dict was copied but the inner ones are "
            "shared: copy every level (copy.deepcopy, or a JSON round trip)."
        )
    return None


def _copy_keeps_types(copy_arguments: StudentFunction) -> str | None:
    arguments = {"flag": True, "count": 1, "ratio": 1.0, "nothing": None, "city": "東京"}
    problem = exact_type_problem(dict(arguments), copy_arguments(arguments), "the copy")
    if problem:
        return f"{problem}\nA copy keeps every value and its type: True is not 1, 1.0 is not 1."
    return None


def _copy_of_empty(copy_arguments: StudentFunction) -> str | None:
    arguments: dict[str, Any] = {}
    result = copy_arguments(arguments)
    if result != {} or result is arguments:
        return f"For {{}} I expected a new empty dict but got {show(result)}."
    return None


def copy_cases(copy_arguments: StudentFunction) -> list[CheckCase]:
    """The cases for `copy_arguments`."""
    return [
        CheckCase(
            "The copy holds the same keys, values and types", lambda: _copy_is_equal(copy_arguments)
        ),
        CheckCase(
            "The copy is a new dict, not the one passed in",
            lambda: _copy_is_new_dict(copy_arguments),
        ),
        CheckCase(
            "Changing the copy at any depth leaves the arguments unchanged",
            lambda: _copy_is_deep(copy_arguments),
        ),
        CheckCase(
            "True, 1, 1.0, None and non-ASCII text survive the copy exactly",
            lambda: _copy_keeps_types(copy_arguments),
        ),
        CheckCase("Empty arguments give a new empty dict", lambda: _copy_of_empty(copy_arguments)),
    ]


def check_copy_arguments(
    copy_arguments: StudentFunction, *, explain_name: Explainer | None = None
) -> CheckReport:
    """Check the student's `copy_arguments` case by case; return the CheckReport."""
    return run_checks("copy_arguments", copy_cases(copy_arguments), explain_name=explain_name)


ROSTER_TEXT = '{"name": "Café crew ☕", "members": [["u-001", "lead"], ["u-002", "member"]]}'
ROSTER_VALUE = {"name": "Café crew ☕", "members": [["u-001", "lead"], ["u-002", "member"]]}


def _decodes_object(fresh_value: StudentFunction) -> str | None:
    problem = exact_type_problem(ROSTER_VALUE, fresh_value(ROSTER_TEXT), "the decoded value")
    if problem:
        return f"{problem}\nDecode the JSON text (json.loads) and return what it gives."
    return None


def _decodes_scalars(fresh_value: StudentFunction) -> str | None:
    for text, expected in (("null", None), ("0", 0), ('""', ""), ('"東京"', "東京"), ("[]", [])):
        problem = exact_type_problem(expected, fresh_value(text), f"the value of {text}")
        if problem:
            return problem
    return None


def _keeps_exact_types(fresh_value: StudentFunction) -> str | None:
    text = '{"flag": true, "count": 1, "ratio": 1.0, "label": "1", "nothing": null}'
    expected = {"flag": True, "count": 1, "ratio": 1.0, "label": "1", "nothing": None}
    problem = exact_type_problem(expected, fresh_value(text), "the decoded value")
    if problem:
        return f"{problem}\nJSON true must stay True, 1 an int and 1.0 a float."
    return None


def _each_call_is_fresh(fresh_value: StudentFunction) -> str | None:
    first = fresh_value(ROSTER_TEXT)
    second = fresh_value(ROSTER_TEXT)
    if first is second or first["members"] is second["members"]:
        return (
            "Two calls with the same text returned shared objects, so editing one result "
            "would edit the other. Decode a brand-new value on every call."
        )
    first["members"].append(["u-003", "guest"])
    if second != copy.deepcopy(ROSTER_VALUE):
        return "Editing one decoded value changed another; each call must decode afresh."
    return None


def _decodes_deep_nesting(fresh_value: StudentFunction) -> str | None:
    depth = 50
    value = fresh_value("[" * depth + "]" * depth)
    for level in range(depth - 1):
        if type(value) is not list or len(value) != 1:
            return f"At depth {level} I expected a list with one item but got {show(value)}."
        value = value[0]
    if value != []:
        return f"The innermost value should be [] but is {show(value)}."
    return None


def fresh_cases(fresh_value: StudentFunction) -> list[CheckCase]:
    """The cases for `fresh_value`."""
    return [
        CheckCase("A JSON object decodes to an equal dict", lambda: _decodes_object(fresh_value)),
        CheckCase(
            'null, 0, "", non-ASCII text and [] decode to themselves',
            lambda: _decodes_scalars(fresh_value),
        ),
        CheckCase(
            "true, 1 and 1.0 keep their exact types", lambda: _keeps_exact_types(fresh_value)
        ),
        CheckCase("Every call returns a brand-new value", lambda: _each_call_is_fresh(fresh_value)),
        CheckCase(
            "A value nested 50 levels deep decodes", lambda: _decodes_deep_nesting(fresh_value)
        ),
    ]


def check_fresh_value(
    fresh_value: StudentFunction, *, explain_name: Explainer | None = None
) -> CheckReport:
    """Check the student's `fresh_value` case by case; return the CheckReport."""
    return run_checks("fresh_value", fresh_cases(fresh_value), explain_name=explain_name)
