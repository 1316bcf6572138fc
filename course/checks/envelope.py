"""Visible check for step 1: `make_envelope` builds the four-key envelope under an unchanged id."""

from collections.abc import Sequence
from typing import Any

from course.checks.harness import (
    CheckCase,
    CheckReport,
    Explainer,
    StudentFunction,
    run_checks,
    show,
)
from course.contract import ENVELOPE_KEYS, FAILURE_CODES, NOT_FOUND, TOOL_FAILED, falsy_values

OK_HINT = "\n'ok' must be the bool True or False, not 1, 0 or another true-looking value."
OK_WAY_HINT = "\n'ok' says which way the call went: True for a success (error None), else False."


def _typed(value: object) -> str:
    """Describe a value with its type, so 0 and False, or 1 and True, read differently."""
    return f"{show(value)} ({type(value).__name__})"


def envelope_mismatch(envelope: object, expected: dict[str, Any]) -> str | None:
    """Return None when `envelope` equals `expected` key by key, with the same types, else why."""
    if not isinstance(envelope, dict):
        return f"It returned {_typed(envelope)}; an envelope is a dict."
    if set(envelope) != set(ENVELOPE_KEYS):
        return (
            f"Its keys are {sorted(map(str, envelope))}; an envelope has exactly the keys "
            "'error', 'id', 'ok' and 'value' (in any order)."
        )
    for key in ENVELOPE_KEYS:
        got, want = envelope[key], expected[key]
        if type(got) is not type(want) or got != want:
            why = _ok_hint(got) if key == "ok" else ""
            return (
                f"Expected {show(expected)}.\n"
                f"Got {show(envelope)}: its '{key}' is {_typed(got)}, "
                f"where {_typed(want)} was expected.{why}"
            )
    return None


def _ok_hint(got: object) -> str:
    """Return the hint for a wrong 'ok': its type when it is no bool, else its direction."""
    return OK_WAY_HINT if type(got) is bool else OK_HINT


def _success(request_id: object, value: object) -> dict[str, Any]:
    return {"id": request_id, "ok": True, "value": value, "error": None}


def _failure(request_id: object, code: str) -> dict[str, Any]:
    return {"id": request_id, "ok": False, "value": None, "error": code}


def _first_problem(
    make_envelope: StudentFunction, calls: Sequence[tuple[object, dict[str, Any], dict[str, Any]]]
) -> str | None:
    """Run (request_id, kwargs, expected) calls in order; return the first problem, said plainly."""
    for request_id, kwargs, expected in calls:
        arguments = ", ".join([show(request_id), *(f"{k}={show(v)}" for k, v in kwargs.items())])
        problem = envelope_mismatch(make_envelope(request_id, **kwargs), expected)
        if problem:
            return f"make_envelope({arguments}):\n{problem}"
    return None


def _cases(make_envelope: StudentFunction) -> list[CheckCase]:
    def success_keeps_id_and_value() -> str | None:
        value = {"name": "山田 花子", "city": "東京"}
        return _first_problem(
            make_envelope, [("req-1", {"value": value}, _success("req-1", value))]
        )

    def failure_carries_code() -> str | None:
        return _first_problem(
            make_envelope,
            [
                (7, {"error": NOT_FOUND}, _failure(7, NOT_FOUND)),
                ("req-2", {"error": TOOL_FAILED}, _failure("req-2", TOOL_FAILED)),
            ],
        )

    def every_code_passes_through() -> str | None:
        calls = [
            (f"req-{code}", {"error": code}, _failure(f"req-{code}", code))
            for code in FAILURE_CODES
        ]
        return _first_problem(make_envelope, calls)

    def awkward_ids_survive() -> str | None:
        calls = []
        for request_id in (0, "", "0", -1, "req 東京 🚀"):
            calls.append((request_id, {"value": "done"}, _success(request_id, "done")))
            calls.append((request_id, {"error": NOT_FOUND}, _failure(request_id, NOT_FOUND)))
        return _first_problem(make_envelope, calls)

    def falsy_values_are_successes() -> str | None:
        calls = [("req-4", {"value": v}, _success("req-4", v)) for v in falsy_values()]
        return _first_problem(make_envelope, calls)

    def each_call_builds_a_new_dict() -> str | None:
        first, second = make_envelope("req-5", value=1), make_envelope("req-5", value=1)
        if first is second:
            return (
                "Two calls returned the very same dict object. Build a new dict on every call, "
                "so changing one envelope can never change another."
            )
        return None

    return [
        CheckCase(
            "A success keeps the request's id and carries the value", success_keeps_id_and_value
        ),
        CheckCase("A failure carries its code, no value, and the id", failure_carries_code),
        CheckCase(
            "Every failure code of the lesson passes through as given", every_code_passes_through
        ),
        CheckCase(
            'The ids 0, "", "0", -1 and a non-ASCII id survive unchanged', awkward_ids_survive
        ),
        CheckCase("None, False, 0, '', [] and {} count as successes", falsy_values_are_successes),
        CheckCase("Each call returns a new dict", each_call_builds_a_new_dict),
    ]


def check_make_envelope(
    make_envelope: StudentFunction, *, explain_name: Explainer | None = None
) -> CheckReport:
    """Check a student's `make_envelope` case by case; return the CheckReport."""
    return run_checks("make_envelope", _cases(make_envelope), explain_name=explain_name)
