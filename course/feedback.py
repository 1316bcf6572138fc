"""The visible checks' machinery: run small cases against a student's function, speak plainly.

A check prints one line per case that passes and stops at the first that does not, with a
message written for the student: what was expected, what happened, and where to look. An
unfinished exercise, a name an earlier step did not define and an exception from the student's
own code each get a message of their own instead of a traceback of the course's internals.
"""

import traceback
from collections.abc import Callable
from dataclasses import dataclass


class CheckFailed(AssertionError):
    """A visible check did not pass; its message is written for the student."""

    def _render_traceback_(self):
        # IPython shows these lines instead of a traceback through this module.
        first, *rest = str(self).split("\n")
        return [f"✗ {first}", *(f"  {line}" for line in rest)]


@dataclass(frozen=True)
class Case:
    """One thing a check verifies: a sentence for the student and a probe.

    `probe` returns None when the student's code behaves, or a sentence saying what went wrong.
    """

    says: str
    probe: Callable[[], "str | None"]


def run_checks(function_name, cases, *, out=print):
    """Run `cases` against the student's `function_name`; raise CheckFailed at the first miss."""
    for case in cases:
        try:
            problem = case.probe()
        except NotImplementedError:
            raise CheckFailed(unfinished_message(function_name)) from None
        except NameError as error:
            raise CheckFailed(missing_name_message(error)) from None
        except Exception as error:
            raise CheckFailed(crashed_message(function_name, case.says, error)) from None
        if problem is not None:
            raise CheckFailed(f"{case.says}: not yet.\n{problem}")
        out(f"✓ {case.says}")
    out(f"All {len(cases)} checks of `{function_name}` passed.")


def unfinished_message(function_name):
    """Tell the student an exercise still raises NotImplementedError, and how to go on."""
    return (
        f"`{function_name}` is not finished yet: it still raises NotImplementedError.\n"
        "Replace `raise NotImplementedError()` in its exercise cell with your code, run that "
        "cell, then run this check again."
    )


def missing_name_message(error):
    """Tell the student which name is missing and where it should have come from."""
    name = getattr(error, "name", None) or str(error)
    return (
        f"`{name}` is not defined here.\n"
        "If it is yours from an earlier step, save that notebook and run the first code cell "
        "of this one again (it loads your earlier work and says what it could not load). "
        "If it belongs to this step, run its exercise cell first."
    )


def crashed_message(function_name, says, error):
    """Describe an exception raised by the student's own code, pointing at their line."""
    where = student_frame(error)
    location = f" ({where})" if where else ""
    return (
        f"{says}: calling `{function_name}` raised {type(error).__name__}{location}.\n"
        f"Message: {safe_text(error)}"
    )


def student_frame(error):
    """Return "cell …, line N" for the deepest frame in the student's code, or ""."""
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        name = frame.filename
        if name.startswith("<") and ".ipynb, cell" in name:
            return f"{name.strip('<>')}, line {frame.lineno}"
        if "ipykernel_" in name:
            return f"your cell in this notebook, line {frame.lineno}"
    return ""


def safe_text(value):
    """Return `str(value)`, or a placeholder when the object's own `__str__` raises."""
    try:
        return str(value)
    except Exception:
        return f"<a {type(value).__name__} whose text could not be shown>"


def show(value):
    """A short repr for messages, safe for values whose repr raises or runs long."""
    try:
        text = repr(value)
    except Exception:
        return f"<a {type(value).__name__}>"
    return text if len(text) <= 120 else text[:117] + "..."
