"""The visible checks' machinery: run small cases against a student's function, speak plainly.

A check runs its cases in order and stops at the first that does not pass. The result is a
CheckReport: the cases that passed, and the first miss in a student's words (what was expected,
what happened, where to look). An unfinished exercise, a name that is not defined and an
exception from the student's own code each get a message of their own, never a traceback of
the course's internals, and nothing is raised: a failing check must not stop Run All.
"""

import contextlib
import io
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

PRINTED_LINES_SHOWN = 12  # lines of what the student's code printed during a check
RED, PLAIN = "\x1b[31m", "\x1b[0m"  # ANSI colours, which JupyterLab and terminals show
# The browser site's kernel (Pyodide): there json.dumps of a value nested some thousands deep
# stops the whole kernel (the browser's stack runs out before Python raises RecursionError), so
# the checks leave their "too deep for JSON" cases to the grader, which runs them on CPython.
IN_BROWSER = sys.platform == "emscripten"

# A function the student wrote: a check calls it with anything and trusts nothing it returns.
StudentFunction = Callable[..., Any]
# Words a NameError for the student: where the missing name should come from, what to run.
Explainer = Callable[[str], str]


@dataclass(frozen=True)
class CheckCase:
    """One thing a check verifies: a sentence for the student and a probe.

    `probe` returns None when the student's code behaves, or a sentence saying what went wrong.
    """

    says: str
    probe: Callable[[], str | None]


@dataclass(frozen=True)
class CheckReport:
    """How a check went: the cases that passed, and the first miss, if any, said plainly."""

    function_name: str
    passed: tuple[str, ...]
    total: int
    failure: str | None = None
    printed: str = ""  # what the student's code printed while it was checked

    @property
    def ok(self) -> bool:
        """True when every case passed."""
        return self.failure is None

    def summary(self) -> str:
        """One line: every case passed, or the first miss's first line."""
        if self.failure is None:
            name = self.function_name
            subject = f"`{name}`" if name.isidentifier() else name
            return f"All {self.total} checks of {subject} passed."
        return self.failure.split("\n", 1)[0]


def run_checks(
    function_name: str,
    cases: Sequence[CheckCase],
    *,
    explain_name: Explainer | None = None,
) -> CheckReport:
    """Run `cases` against the student's `function_name` and return a CheckReport.

    `explain_name(name)` words a NameError (a notebook check knows where the name should come
    from); by default the message only says the name is not defined.
    """
    passed: list[str] = []
    printed = io.StringIO()
    for case in cases:
        problem = _probe(case, function_name, explain_name, printed)
        if problem is not None:
            return CheckReport(
                function_name, tuple(passed), len(cases), problem, printed.getvalue()
            )
        passed.append(case.says)
    return CheckReport(function_name, tuple(passed), len(cases), None, printed.getvalue())


def _probe(
    case: CheckCase,
    function_name: str,
    explain_name: Explainer | None,
    printed: io.StringIO,
) -> str | None:
    """Return None when the case passes, else the sentence for the student."""
    try:
        # What the student's code prints (a log line, say) must not look like the check's words.
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            problem = case.probe()
    except NotImplementedError:
        return unfinished_message(function_name)
    except NameError as error:
        name = getattr(error, "name", None) or safe_text(error)
        return (explain_name or missing_name_message)(name)
    except Exception as error:
        return crashed_message(function_name, case.says, error)
    return None if problem is None else f"{case.says}: not yet.\n{problem}"


def print_report(
    report: CheckReport, *, out: TextIO | None = None, err: TextIO | None = None
) -> None:
    """Print a report: ✓ lines on stdout, a miss on stderr (so nbgrader's validate sees it)."""
    out, err = out or sys.stdout, err or sys.stderr
    for says in report.passed:
        print(f"✓ {says}", file=out)
    if report.ok:
        print(report.summary(), file=out)
    if report.printed.strip():
        lines = report.printed.rstrip("\n").split("\n")
        shown = lines[:PRINTED_LINES_SHOWN]
        more = len(lines) - len(shown)
        tail = [f"  … and {more} more lines"] if more > 0 else []
        print("Your code printed this while it was checked:", file=out)
        print("\n".join([*(f"  {line}" for line in shown), *tail]), file=out)
    if report.failure is not None:
        print_failure(report.failure, out=out, err=err)


def print_failure(message: str, *, out: TextIO | None = None, err: TextIO | None = None) -> None:
    """Print a miss as ✗ lines on stderr, after flushing stdout so the two stay in order."""
    out, err = out or sys.stdout, err or sys.stderr
    out.flush()
    first, *rest = message.split("\n")
    print("\n".join([f"✗ {first}", *(f"  {line}" for line in rest)]), file=err)
    err.flush()


def say(line: str, *, out: TextIO | None = None, err: TextIO | None = None) -> None:
    """Print one report line as the course does everywhere: ✗ red on stderr, ⚠ red, else plain.

    ✗ goes to stderr, which JupyterLab shows in red and nbgrader's Validate reads; ⚠ costs no
    points, so it stays on stdout (Validate ignores it) and is coloured red instead.
    """
    if line.startswith("✗"):
        print_failure(line.removeprefix("✗").lstrip(), out=out, err=err)
    elif line.startswith("⚠"):
        out = out or sys.stdout
        print(in_red(line, out), file=out)
    else:
        print(line, file=out or sys.stdout)


def in_red(text: str, stream: TextIO) -> str:
    """Return `text` coloured red for a notebook's output or a terminal; as it is elsewhere.

    JupyterLab (and JupyterLite) show ANSI colours in a cell's output; a string a grader keeps
    (Gradescope's visible checks) or a file must not hold escape codes.
    """
    in_kernel = "ipykernel" in sys.modules or "pyodide_kernel" in sys.modules
    is_console = stream in (sys.stdout, sys.stderr) and in_kernel
    with contextlib.suppress(AttributeError, ValueError):
        is_console = is_console or stream.isatty()
    return f"{RED}{text}{PLAIN}" if is_console else text


def unfinished_message(function_name: str) -> str:
    """Tell the student an exercise still raises NotImplementedError, and how to go on."""
    return (
        f"`{function_name}` is not finished yet: it still raises NotImplementedError.\n"
        "Replace `raise NotImplementedError()` in its exercise cell with your code, run that "
        "cell, then run this check again."
    )


def missing_name_message(name: str) -> str:
    """Say that `name` is not defined, when nothing more is known about where it comes from."""
    return (
        f"`{name}` is not defined in this kernel.\n"
        "Run the cell that defines it (after a kernel restart, run the notebook from the top: "
        "Run → Run All Cells), then run this check again."
    )


def crashed_message(function_name: str, says: str, error: BaseException) -> str:
    """Describe an exception raised by the student's own code, pointing at their line."""
    where = student_frame(error)
    location = f" ({where})" if where else ""
    return (
        f"{says}: calling `{function_name}` raised {type(error).__name__}{location}.\n"
        f"Message: {safe_text(error)}"
    )


def student_frame(error: BaseException) -> str:
    """Return "cell …, line N" for the deepest frame in the student's code, or ""."""
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        name = frame.filename
        if name.startswith("<") and ".ipynb, " in name:
            return f"{name.strip('<>')}, line {frame.lineno}"
        if "ipykernel_" in name:
            return f"your cell in this notebook, line {frame.lineno}"
    return ""


def safe_text(value: object) -> str:
    """Return `str(value)`, or a placeholder when the object's own `__str__` raises."""
    try:
        return str(value)
    except Exception:
        return f"<a {type(value).__name__} whose text could not be shown>"


def show(value: object) -> str:
    """A short repr for messages, safe for values whose repr raises or runs long."""
    try:
        text = repr(value)
    except Exception:
        return f"<a {type(value).__name__}>"
    return text if len(text) <= 120 else text[:117] + "..."
