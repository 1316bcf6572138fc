"""The guard's replies once a submission has loaded, or its visible checks have run.

Student code ran just before either: what the loop hands over is read as data only, through
exact built-in methods, and a MemoryError becomes MEMORY_REPLY, sent as it is.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

from grader.sandbox.inside.channel import MEMORY_REPLY
from grader.sandbox.inside.picture import type_name

if TYPE_CHECKING:
    from grader.sandbox.inside.protocol import CheckReply, LoadReply

# Private built-ins: see grader/sandbox/inside/picture.py.
__builtins__ = dict(vars(builtins))  # type: ignore[assignment]

# The most text the visible checks may send back (a check's text is a few hundred characters).
_CHECKS_TEXT_LIMIT = 1 << 20
# How course.carry.execute.run_cells words a cell that stopped with a MemoryError.
_MEMORY_PROBLEM = " stopped with MemoryError "


def load_reply(outcome: Any, invoke_tool: object, forbidden: list[str]) -> LoadReply | str:
    """Say whether the submission loaded and defined invoke_tool, or return MEMORY_REPLY."""
    if issubclass(type(outcome), BaseException):
        if type(outcome) is MemoryError:
            return MEMORY_REPLY
        reason = (
            f"Your code stopped with {type_name(type(outcome))} while it was being loaded, "
            "so none of it could be tested. Remove calls such as sys.exit() or input() "
            "from the top level of your code."
        )
        return {"loaded": False, "reason": reason, "forbidden": forbidden}
    problems = [str.__str__(problem) for problem in outcome]
    if callable(invoke_tool):
        return {"loaded": True, "problems": problems, "forbidden": forbidden}
    if any(_MEMORY_PROBLEM in problem for problem in problems):
        return MEMORY_REPLY  # out of memory before invoke_tool existed
    problems.append(
        "No function named invoke_tool was defined, so there was nothing to test. "
        "Check its name and that the cell or file that defines it runs without errors."
    )
    return {"loaded": False, "reason": " ".join(problems), "forbidden": forbidden}


def check_reply(outcome: Any, text: object, forbidden: list[str]) -> CheckReply | str:
    """Return the visible checks' text with what loading said, or MEMORY_REPLY."""
    if type(outcome) is MemoryError:
        return MEMORY_REPLY
    if issubclass(type(outcome), BaseException):
        problems = [f"Your code stopped with {type_name(type(outcome))} while it was loaded."]
    else:
        problems = [str.__str__(problem) for problem in outcome]
    checks = text if type(text) is str and len(text) <= _CHECKS_TEXT_LIMIT else None
    return {"checks": checks, "problems": problems, "forbidden": forbidden}
