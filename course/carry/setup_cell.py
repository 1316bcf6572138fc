"""The setup cell's status report, and where a name a check could not find should come from.

`load_earlier_steps` is what the first code cell of every notebook calls: it loads what the
earlier notebooks carry forward (by the rule of course/carry/assemble.py, the same the grader uses),
runs each loaded step's visible check on what was loaded, and reports, step by step, whether the
saved work passes, is unfinished, missing, doubled or unsaved. It also starts watching the
notebook's cell runs (course/carry/history.py), so a check can tell a renamed function.
"""

import contextlib
import difflib
import io
from collections.abc import Callable
from pathlib import Path

from course.carry.analysis import defined_names
from course.carry.assemble import Assembly, StepWork, assemble, read_step
from course.carry.diagnose import function_states
from course.carry.execute import Namespace, run_cells, supplied_names
from course.carry.history import unsaved_note, watch_cells
from course.carry.notebooks import AssemblyError
from course.checks.harness import say
from course.manifest import Course, Step, load_course

CARRY_RULE = (
    "From each earlier notebook, its exercise cells and the code cells you added yourself "
    "carry forward, as saved on disk; the course's own cells do not."
)


def load_earlier_steps(
    namespace: Namespace,
    notebook: str,
    *,
    folder: str | Path = ".",
    course: Course | None = None,
    out: Callable[[str], object] = say,
) -> None:
    """Load the saved work of the steps before `notebook` into `namespace`; report on each step.

    Notebooks call this with `globals()` in their first code cell. It prints one line per
    earlier step (✓ finished and passing its check; ✗ unfinished, missing or failing its check,
    in red on stderr; ⚠ doubled or unsaved, in red) and, in plain words, anything else that
    needs fixing. It raises only when `notebook` is not a step of the lesson, and returns None
    so the cell shows only those printed lines.
    """
    watch_cells()
    course = course or load_course()
    step = course.step_for_notebook(notebook)
    if step is None:
        raise AssemblyError(f"{notebook} is not a notebook of this lesson.")
    works = [read_step(folder, s) for s in course.all_steps if s.number < step.number]
    assembly = assemble(works, course)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        ran = run_cells(assembly.cells, namespace)
    for line in status_lines(assembly, ran, folder, printed.getvalue(), loaded=namespace):
        out(line)


def status_lines(
    assembly: Assembly,
    ran: tuple[str, ...],
    folder: str | Path = ".",
    printed: str = "",
    *,
    loaded: Namespace | None = None,
) -> list[str]:
    """Return the report's lines: one per step, then the other problems, then the rule.

    With `loaded` (the namespace the steps' cells ran in), each finished step's functions are
    run through their visible checks too.
    """
    if not assembly.works:
        return ["This is the first step: there is no earlier work to load."]
    lines = ["Your work from the earlier notebooks, as saved:"]
    told: set[str] = set()
    for work in assembly.works:
        mark, sentences = step_state(work, folder, loaded)
        told.update(f"{work.step.label}: {sentence}" for sentence in sentences)
        lines.append(f"{mark} {work.step.label}: " + " ".join(sentences))
    lines += [f"⚠ {problem}" for problem in (*assembly.problems, *ran) if problem not in told]
    if printed.strip():
        count = len(printed.strip().splitlines())
        lines.append(f"(Your cells printed {count} lines while they loaded; they are not shown.)")
    lines.append(CARRY_RULE)
    return lines


def step_state(
    work: StepWork, folder: str | Path = ".", loaded: Namespace | None = None
) -> tuple[str, list[str]]:
    """Return (mark, sentences) for one step: ✓ finished, ✗ not usable yet, ⚠ needs a look.

    A note that the notebook has unsaved changes comes with any mark: a step left unfinished
    on disk is often one whose check passed in a kernel that was never saved. With `loaded`,
    a finished function that fails its visible check there makes the step ✗ and says why.
    """
    sentences = work.problems()
    if not work.unreadable:
        unsaved = (unsaved_note(name, work.step, work.cells, folder) for name in work.step.defines)
        sentences += [note for note in unsaved if note]
    states = function_states(work)
    if work.unreadable or any(state.state != "finished" for state in states):
        return "✗", sentences
    failing = _failing_checks(work, loaded) if loaded is not None else []
    if failing:
        return "✗", failing + sentences
    if sentences:
        return "⚠", sentences
    names = " and ".join(f"`{name}`" for name in work.step.defines)
    one = len(work.step.defines) == 1
    checked = (
        "" if loaded is None else (" and passes its check" if one else " and pass their checks")
    )
    return "✓", [f"{names} {'is' if one else 'are'} finished{checked}."]


def _failing_checks(work: StepWork, loaded: Namespace) -> list[str]:
    """Return a sentence for each of the step's functions that fails its check as loaded."""
    from course.checks import step_check_lines  # the checks import this module

    prefix = f"✗ {work.step.label}: "
    return [
        line.removeprefix(prefix)
        for line in step_check_lines(work, loaded)
        if line.startswith(prefix)
    ]


def where_name_comes_from(
    name: str,
    notebook: str,
    namespace: Namespace,
    *,
    folder: str | Path = ".",
    course: Course | None = None,
) -> str:
    """Say where `name`, missing from this kernel, should come from, and what to run.

    Checks call this for a NameError, so a restart, a skipped cell and a typo each get their
    own advice.
    """
    course = course or load_course()
    here = course.step_for_notebook(notebook)
    owner = course.step_defining(name)
    if name in supplied_names():
        return (
            f"`{name}` is supplied by the course, and the first code cell of this notebook "
            "gives it to you. This kernel does not have it, probably because it restarted: run "
            "the notebook from the top (Run → Run All Cells)."
        )
    if owner is not None and here is not None and owner.number < here.number:
        return (
            f"`{name}` comes from {owner.label}, but this kernel does not have it: run the first "
            "code cell of this notebook, which loads your earlier work and says what is wrong "
            "with it."
        )
    if owner is not None and owner == here:
        return (
            f"`{name}` is this step's exercise, and this kernel does not have it: its cell has "
            "not run, or it stopped with an error (a SyntaxError, say). Run the cell under "
            "“Your turn”, fix what it reports, then run this check again."
        )
    return _found_in_cells(name, here, namespace, folder, course)


def _found_in_cells(
    name: str, here: Step | None, namespace: Namespace, folder: str | Path, course: Course
) -> str:
    steps = [s for s in course.all_steps if here is None or s.number <= here.number]
    for work in (read_step(folder, s) for s in reversed(steps)):
        for cell in work.cells:
            if name in defined_names(cell.source):
                return (
                    f"`{name}` is defined in {cell.label}, which has not run in this kernel: "
                    "run it (a cell of an earlier notebook is loaded by the first code cell "
                    "of this one), then this check again."
                )
        cell_id = dict(work.course_names).get(name)
        if cell_id:
            return (
                f"`{name}` is defined by the course's cell '{cell_id}' in "
                f"{work.step.notebook}. The course's cells do not carry forward to later "
                "notebooks or to grading: define it in your own code."
            )
    close = difflib.get_close_matches(name, [n for n in namespace if not n.startswith("_")], n=1)
    typo = f" Is it a typo for `{close[0]}`?" if close else " Check its spelling."
    return f"`{name}` is not defined anywhere in your saved notebooks or in this kernel.{typo}"
