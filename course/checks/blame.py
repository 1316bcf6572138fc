"""Whose rule a miss of step 7's check breaks, and so what the student reads first.

`invoke_tool` assembles the functions of steps 1 to 6, so when one of its cases fails, an
earlier function that fails its own check may be the cause, or may be beside the point. The
case decides, not the state of the earlier steps: each part of a case asks some grading
categories (the rules it tests), and an earlier step leads only when it teaches one of them and
its function fails its own check. Any other earlier function that fails its check is named after
the real cause, as context, so fixing it is not mistaken for fixing this miss.
"""

import traceback
from collections.abc import Callable
from dataclasses import dataclass

from course.checks.harness import StudentFunction, safe_text
from course.checks.oracle import envelope_problem
from course.contract import CATEGORY_TABLE, ENVELOPE_KEYS, FAILURE_CODES
from course.manifest import Course, Step

ENVELOPE = "envelope"  # rules 1 and 2: the id, the four keys, ok a bool, a code on failure
OWNERSHIP = "ownership"  # rule 6: the value is the JSON text decoded unchanged
BUDGET = "unicode_boundary"  # rule 4 and result_too_large


@dataclass(frozen=True)
class EarlierMiss:
    """An earlier step's function that `invoke_tool` uses and that fails its own check."""

    step: Step
    name: str
    summary: str  # the first line of its own check's miss

    def lead(self) -> str:
        """Say that this function is the cause, in the words that open the message."""
        return (
            f"`invoke_tool` calls `{self.name}` from {self.step.label}, and that function does "
            f"not pass its own check: {self.summary}\n"
            f"Fix `{self.name}` in {self.step.notebook} (its check says more), save it, then run "
            "the first code cell of this notebook again to load it, and this check."
        )

    def also(self) -> str:
        """Say, after the real cause, that this function needs fixing too."""
        return (
            f"Also: `invoke_tool` calls `{self.name}` from {self.step.label}, which does not "
            f"pass its own check yet: {self.summary} Fix it too, in {self.step.notebook} "
            "(its check says more)."
        )


class Blame:
    """What the part of a case that ran last asks (its categories), and what it raised.

    The harness stops at the first case that misses, so after a miss this holds the
    categories of the part that missed, refined by what was wrong with its envelope.
    """

    def __init__(self) -> None:
        self.categories: tuple[str, ...] = ()
        self.raised: Exception | None = None

    def asks(self, categories: tuple[str, ...], probe: Callable[[], str | None]) -> str | None:
        """Run one part of a case that tests `categories`; return its problem, as `probe` does."""
        self.categories, self.raised = categories, None
        try:
            return probe()
        except Exception as error:
            self.raised = error  # the harness still words it; `crash_site` looks at where
            raise

    def envelope(
        self,
        envelope: object,
        request_id: object,
        *,
        value: object = None,
        error: str | None = None,
    ) -> str | None:
        """Judge an envelope as `envelope_problem` does, noting whose rule a wrong one breaks."""
        problem = envelope_problem(envelope, request_id, value=value, error=error)
        if problem:
            self.categories = envelope_categories(envelope, request_id, error)
        return problem


def category_of_code(code: str) -> str:
    """Return the grading category that judges the failure code `code`."""
    return next(category.name for category in CATEGORY_TABLE if code in category.codes)


def envelope_categories(
    envelope: object, request_id: object, expected_error: str | None
) -> tuple[str, ...]:
    """Return the categories whose rules a wrong envelope breaks.

    A wrong shape or id is the envelope's (rules 1 and 2); a wrong code is the category of the
    code that was due and of the one given (a valid value refused as invalid_result is the
    vocabulary's); a wrong value of a success is ownership's (rule 6).
    """
    if not isinstance(envelope, dict) or set(envelope) != set(ENVELOPE_KEYS):
        return (ENVELOPE,)
    kept = envelope["id"] == request_id and type(envelope["id"]) is type(request_id)
    if not kept or type(envelope["ok"]) is not bool:
        return (ENVELOPE,)
    given = envelope["error"]
    if envelope["ok"] is (expected_error is None) and given == expected_error:
        return (ENVELOPE,) if expected_error is not None else (OWNERSHIP,)
    if given is not None and given not in FAILURE_CODES:
        return (ENVELOPE,)  # rule 2: a failure's error is exactly one of the codes
    codes = [code for code in (expected_error, given) if code is not None]
    return tuple(dict.fromkeys(category_of_code(code) for code in codes)) or (ENVELOPE,)


def earlier_misses(invoke_tool: StudentFunction, course: Course) -> list[EarlierMiss]:
    """Return each earlier step's function `invoke_tool` uses that fails its own check.

    The functions are the ones `invoke_tool` finds in its own globals, as it calls them, so the
    check of each judges exactly what `invoke_tool` ran. None when `invoke_tool` uses none of
    them (it may do their work itself).
    """
    used = globals_used(invoke_tool)
    misses = []
    for step in course.steps:
        for name in step.defines:
            miss = own_check_miss(step, name, invoke_tool) if name in used else None
            if miss is not None:
                misses.append(miss)
    return misses


def own_check_miss(step: Step, name: str, invoke_tool: StudentFunction) -> EarlierMiss | None:
    """Run the own check of the `name` that `invoke_tool` finds; None if it passes or is absent."""
    from course.checks import CHECKS  # the package imports this module

    function = getattr(invoke_tool, "__globals__", {}).get(name)
    if name == "invoke_tool" or not callable(function):
        return None
    report = CHECKS[name](function)
    return None if report.ok else EarlierMiss(step, name, report.summary())


def globals_used(function: object, depth: int = 3) -> set[str]:
    """Return the global names `function` reads, and those of the functions it reads, a few deep."""
    code = getattr(function, "__code__", None)
    namespace = getattr(function, "__globals__", {})
    if code is None or depth == 0:
        return set()
    names: set[str] = set()
    codes = [code]
    while codes:
        current = codes.pop()
        names.update(current.co_names)
        codes += [c for c in current.co_consts if hasattr(c, "co_names")]
    for name in list(names):
        helper = namespace.get(name)
        if getattr(helper, "__globals__", None) is namespace:
            names |= globals_used(helper, depth - 1)
    return names


def crash_site(
    error: BaseException, invoke_tool: StudentFunction, course: Course
) -> tuple[Step, str] | None:
    """Return the step and name of the earlier function deepest in `error`'s traceback, or None.

    Frames are matched by code object, so only the very function `invoke_tool` finds in its
    globals counts, whatever file or cell it came from.
    """
    namespace = getattr(invoke_tool, "__globals__", {})
    functions = {
        getattr(namespace.get(name), "__code__", None): (step, name)
        for step in course.steps
        for name in step.defines
        if name != "invoke_tool"
    }
    functions.pop(None, None)
    site = None
    for frame, _line in traceback.walk_tb(error.__traceback__):
        site = functions.get(frame.f_code, site)
    return site


def handed_wrong_input(says: str, error: Exception, name: str, categories: tuple[str, ...]) -> str:
    """Word a crash inside an earlier function that passes its own check: the input was wrong.

    The function does what its step asks, so the fix is in what `invoke_tool` gave it; pointing
    at the earlier cell (where the exception was raised) would send the student the wrong way.
    """
    raised = f"{type(error).__name__} ({safe_text(error)})"
    over_budget = BUDGET in categories
    if name == "fresh_value" and isinstance(error, ValueError):
        what = "a result over the budget" if over_budget else "the result"
        instead = " instead of refused" if over_budget else ""
        happened = (
            f"`invoke_tool` gave `fresh_value` a text that is not whole JSON, and it raised "
            f"{raised}: the JSON text of {what} was cut or rewritten{instead}. `fresh_value` "
            "passes its own check, so the problem is not there."
        )
    else:
        happened = (
            f"`invoke_tool` called `{name}`, which raised {raised}. `{name}` passes its own "
            "check, so the problem is what `invoke_tool` gave it."
        )
    rules = "Rule 6: a successful value is its JSON text decoded unchanged."
    if over_budget:
        rules = (
            "Rule 4: a value whose JSON text is more than max_result_bytes UTF-8 bytes gets the "
            f"code result_too_large, and no value. {rules}"
        )
    where = "Fix this in `invoke_tool` itself, in 07-invoke-tool.ipynb."
    if over_budget:
        where += " Refuse a result that does not fit; never cut its text to fit."
    return f"{says}: not yet.\n{happened}\n{rules}\n{where}"


def blamed_failure(
    says: str, failure: str, blame: Blame, invoke_tool: StudentFunction, course: Course
) -> str:
    """Return the miss as the student should read it: the real cause first, context after.

    `says` is the case that missed and `failure` the harness's words for it; `blame` holds what
    the missing part asked and raised.
    """
    misses = earlier_misses(invoke_tool, course)
    lead = next((m for m in misses if set(m.step.categories) & set(blame.categories)), None)
    error = blame.raised
    site = None
    if error is not None and not isinstance(error, NotImplementedError | NameError):
        site = crash_site(error, invoke_tool, course)
    if site is not None:
        # Raised inside an earlier function: its own check says whether the fault is there.
        step, name = site
        failing = next((m for m in misses if m.name == name), None)
        failing = failing or own_check_miss(step, name, invoke_tool)
        if failing is None and error is not None:
            failure = handed_wrong_input(says, error, name, blame.categories)
        else:
            lead = failing
    also = [miss.also() for miss in misses if miss is not lead]
    opening = [lead.lead(), f"What this check saw: {failure}"] if lead else [failure]
    return "\n".join([*opening, *also])
