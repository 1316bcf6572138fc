"""The check cells' entry points: `check` for one exercise, `check_saved_work` for them all.

A check cell passes the notebook's `globals()`, never the function itself: after a kernel
restart, or before the exercise cell has run, the function is simply not there, and the check
says what to run instead of failing with a traceback; a function its cell no longer defines (a
rename, course/carry/history.py's CellRuns) is named as such and not judged. Nothing here raises: a
check that does not pass prints its message on stderr (which nbgrader's Validate reads) and lets
Run All go on. `saved_work_lines` is what `check_saved_work` and the handout's hand-in print: the
same checks on the saved notebooks, loaded as the grader loads them.
"""

import contextlib
import io
from collections.abc import Callable
from pathlib import Path

# `setup_cell` as a module: it imports this package's neighbours while it loads.
from course.carry import history, setup_cell
from course.carry.assemble import Assembly, StepWork, exercise_cells, read_step
from course.carry.diagnose import function_states, undefined_name_problems
from course.carry.execute import Namespace, run_cells
from course.checks.envelope import check_make_envelope
from course.checks.error_codes import check_failure_code
from course.checks.harness import CheckReport, print_failure, print_report, say
from course.checks.invoke_tool import check_invoke_tool
from course.checks.no_retry import check_call_once
from course.checks.ownership import check_copy_arguments, check_fresh_value
from course.checks.unicode_boundary import check_budget_error
from course.checks.vocabulary import check_encode_json
from course.manifest import Course, Step, load_course

# Each exercise's function, and the check that judges it.
CHECKS: dict[str, Callable[..., CheckReport]] = {
    "make_envelope": check_make_envelope,
    "failure_code": check_failure_code,
    "encode_json": check_encode_json,
    "budget_error": check_budget_error,
    "copy_arguments": check_copy_arguments,
    "fresh_value": check_fresh_value,
    "call_once": check_call_once,
    "invoke_tool": check_invoke_tool,
}


def check(name: str, namespace: Namespace, *, folder: str | Path = ".") -> None:
    """Check the exercise function `name` as this kernel has it, and say how it went.

    After the cases it compares the function with the saved notebook: later notebooks and the
    grader read the saved file, so unsaved work, or a name the saved cells use but nothing that
    carries forward defines, is pointed out here, while the student is still in this step.
    """
    course = load_course()
    step = course.step_defining(name)
    if step is None:
        raise KeyError(f"{name!r} is not a function an exercise of the lesson defines")
    function = namespace.get(name)
    if function is None:
        print_failure(
            setup_cell.where_name_comes_from(
                name, step.notebook, namespace, folder=folder, course=course
            )
        )
        return
    stale = stale_message(name, step)
    if stale:
        print_failure(stale)
        return
    report = CHECKS[name](function, explain_name=_explainer(step, namespace, folder, course))
    print_report(report)
    source = history.kernel_source(function)
    for note in saved_notes(name, source, step, folder, course):
        say(f"⚠ {note}")
    if source is not None:
        work = read_step(folder, step)
        saved = "" if work.unreadable else history.saved_digest(work.cells)
        history.record_check(name, source, report.ok, folder, saved=saved)


def stale_message(name: str, step: Step) -> str | None:
    """Say when this kernel's `name` is not what its cell defines now, or return None.

    None too when no cell runs were watched (outside a notebook, or before the setup cell).
    """
    runs = history.watching()
    if runs is None:
        return None
    labels = {cell_id: f"the exercise cell '{cell_id}'" for cell_id in step.exercises}
    return runs.stale_message(name, labels)


def _explainer(
    step: Step, namespace: Namespace, folder: str | Path, course: Course
) -> Callable[[str], str]:
    def explain(name: str) -> str:
        return setup_cell.where_name_comes_from(
            name, step.notebook, namespace, folder=folder, course=course
        )

    return explain


def saved_notes(
    name: str,
    source: str | None,
    step: Step,
    folder: str | Path = ".",
    course: Course | None = None,
) -> list[str]:
    """Return what the saved notebook needs before `name` carries forward as the kernel has it.

    A version the saved notebook lacks is unsaved work; once saved, any name the step's saved
    cells use that nothing carrying forward defines is named, with where it comes from.
    """
    course = course or load_course()
    work = read_step(folder, step)
    if work.unreadable:
        return []  # not run from the lesson's folder (a test, say): nothing to compare
    if source is not None and not history.saved_holds(source, work.cells):
        return [
            f"The saved {step.notebook} does not hold this version of `{name}` yet. Later "
            "notebooks and the grader read the saved file: save it now (File → Save Notebook, "
            "or Ctrl+S with the cursor outside any text box)."
        ]
    earlier = [read_step(folder, s) for s in course.all_steps if s.number < step.number]
    problems = undefined_name_problems([*earlier, work], course)
    return [problem for problem in problems if problem.startswith(step.label)]


def check_saved_work(namespace: Namespace | None = None, *, folder: str | Path = ".") -> None:
    """Run every step's check on the saved notebooks, loaded afresh as the grader loads them.

    What this prints is what the grader will grade: it ignores this kernel's state and reads
    the files. Each function gets a line, ✓ on stdout or ✗ on stderr (so nbgrader's Validate
    fails on it); notes that cost no points (two copies of a cell, a function of this kernel
    that is not saved) are ⚠ lines on stdout.
    """
    # Read before loading: loading registers the saved sources under the same cell names.
    kernel = {
        name: history.kernel_source(f) for name, f in (namespace or {}).items() if callable(f)
    }
    for line in saved_work_lines(folder, kernel):
        say(line)


def saved_work_lines(
    folder: str | Path = ".", kernel: dict[str, str | None] | None = None
) -> list[str]:
    """Return the report on the saved notebooks, as the grader loads them, line by line.

    One ✓ or ✗ line per function, then ⚠ notes, then a closing line when every step passes.
    `kernel` maps names to the sources a kernel holds, to name each that is not the saved one.
    """
    course = load_course()
    assembly = exercise_cells(folder, course)
    loaded: Namespace = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        ran = run_cells(assembly.cells, loaded)
    lines = ["Your saved notebooks, loaded as the grader loads them:"]
    told = set()
    for work in assembly.works:
        for line in step_check_lines(work, loaded):
            told.add(line.removeprefix("✗ "))
            lines.append(line)
    failures = sum(line.startswith("✗") for line in lines)
    notes = [p for p in (*assembly.problems, *ran) if p not in told]
    notes += _kernel_differences(kernel or {}, assembly)
    lines += [f"⚠ {note}" for note in dict.fromkeys(notes)]
    if not failures:
        lines.append("Every step the grader reads passes its visible check.")
    return lines


def step_check_lines(work: StepWork, loaded: Namespace) -> list[str]:
    """Return one line per function the step defines: ✓ its check passes, or ✗ why not.

    `loaded` is a namespace the saved cells ran in, as the grader runs them.
    """
    label = work.step.label
    if work.unreadable:
        return [f"✗ {label}: {work.unreadable}"]
    lines = []
    for name, state, detail in function_states(work):
        if state != "finished":
            lines.append(f"✗ {label}: {detail}")
        elif not callable(loaded.get(name)):
            lines.append(f"✗ {label}: `{name}` is not defined once the saved cells have run.")
        else:
            report = CHECKS[name](loaded[name])
            if report.ok:
                lines.append(f"✓ {label}: `{name}` passes all {report.total} checks.")
            else:
                lines.append(
                    f"✗ {label}: `{name}` as saved does not pass its check: "
                    f"{report.summary()} Run the check in {work.step.notebook} for the details."
                )
    return lines


def _kernel_differences(kernel: dict[str, str | None], assembly: Assembly) -> list[str]:
    """Name each of the kernel's exercise functions that is not the saved one."""
    differences = []
    for work in assembly.works:
        for name in work.step.defines:
            source = kernel.get(name)
            if source is not None and not history.saved_holds(source, work.cells):
                differences.append(
                    f"{work.step.label}: this kernel's `{name}` differs from the saved one, "
                    "and the saved one is what is graded (and what was checked above). The "
                    "kernel's exists only in memory: if it is the one you want, put its code "
                    f"back in its cell in {work.step.notebook}, run that cell and save the "
                    "notebook; if the saved one is newer, run the first code cell of this "
                    "notebook to load it."
                )
    return differences
