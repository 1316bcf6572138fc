"""What keeps a step's saved work from being whole, said to the student in plain sentences.

An exercise cell deleted or renamed, a function still unfinished or renamed, a name a carried
cell uses that nothing carried defines: each gets a sentence that says where, and how to fix
it. The setup cell, the checks and the grader's feedback all show these same sentences.
"""

import builtins
import difflib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal, NamedTuple

from course import supplied
from course.carry.analysis import defined_names, has_star_import, stubbed_functions, used_globals
from course.manifest import Course, Step

if TYPE_CHECKING:
    from course.carry.assemble import StepWork

# Names every module has, and names only Jupyter provides (graded code runs as plain Python).
MODULE_NAMES = frozenset({"__name__", "__doc__", "__builtins__", "__spec__", "__loader__"})
JUPYTER_NAMES = frozenset({"get_ipython", "display", "In", "Out", "_ih", "_oh"})


class FunctionState(NamedTuple):
    """Where one function a step defines stands; `sentence` is "" when it is finished."""

    name: str
    state: Literal["finished", "unfinished", "missing"]
    sentence: str


def missing_cell_message(cell_id: str) -> str:
    """Say that an exercise cell is gone, and how to get it back."""
    return (
        f"the exercise cell '{cell_id}' is missing; it was deleted, or its id "
        "was changed. Undo the deletion (Edit → Undo Cell Operation) or copy the cell back "
        "from a fresh copy of the lesson, then save the notebook."
    )


def function_states(work: "StepWork") -> list[FunctionState]:
    """Return the state of each name the step defines: finished, unfinished or missing.

    "unfinished" means the function still raises NotImplementedError. A name is judged by the
    last cell that carries forward and defines it, the one that runs last; a missing one is
    compared with the step's own definitions, for a rename.
    """
    states = []
    for name in work.step.defines:
        defining = [cell for cell in work.cells if name in defined_names(cell.source)]
        if not defining:
            states.append(FunctionState(name, "missing", _missing_function_message(work, name)))
        elif name in stubbed_functions(defining[-1].source):
            where = defining[-1].label.removeprefix(f"{work.step.label}, ")
            sentence = f"`{name}` is not finished yet: {where} still raises NotImplementedError."
            states.append(FunctionState(name, "unfinished", sentence))
        else:
            states.append(FunctionState(name, "finished", ""))
    return states


def _missing_function_message(work: "StepWork", name: str) -> str:
    if work.missing:
        return f"`{name}` is missing, because its exercise cell is missing."
    defined = sorted({n for cell in work.cells for n in defined_names(cell.source)})
    close = difflib.get_close_matches(name, defined, n=1)
    renamed = (
        f" Your cells define `{close[0]}`: later steps and the grader call it `{name}`, so "
        "give it that name again."
        if close
        else " Define it in the step's exercise cell (a fresh copy of the lesson has it)."
    )
    return f"no cell that carries forward defines `{name}`.{renamed}"


def undefined_name_problems(works: Sequence["StepWork"], course: Course) -> list[str]:
    """Return one sentence per name a carried cell uses that nothing carried defines.

    Names of later steps, supplied names, builtins and module names count as defined. When a
    cell of the course defines the name, the sentence points there; when it looks like a typo
    of a known name, it says which.
    """
    cells = [cell for work in works for cell in work.cells]
    if any(has_star_import(cell.source) for cell in cells):
        return []  # `from x import *` defines names no reading can list
    defined = set(vars(builtins)) | MODULE_NAMES | set(supplied.__all__)
    defined |= {name for step in course.all_steps for name in step.defines}
    defined |= {name for cell in cells for name in defined_names(cell.source)}
    course_names = {
        name: (work.step, cell_id) for work in works for name, cell_id in work.course_names
    }
    problems = []
    for cell in cells:
        for name in sorted(used_globals(cell.source) - defined):
            problems.append(
                f"{cell.label} uses `{name}`, but nothing that carries forward defines it. "
                + _where_defined(name, course_names, defined)
            )
    return problems


def _where_defined(
    name: str, course_names: Mapping[str, tuple[Step, str]], defined: set[str]
) -> str:
    if name in JUPYTER_NAMES:
        return (
            f"`{name}` exists only inside Jupyter, and your cells also run as plain Python in "
            "later notebooks and at grading: remove it from the code that carries forward."
        )
    if name in course_names:
        step, cell_id = course_names[name]
        return (
            f"The course's cell '{cell_id}' in {step.notebook} defines it, and the course's "
            "cells do not carry forward: define it in your own code (the exercise cell, or a "
            "code cell you add to the notebook)."
        )
    close = difflib.get_close_matches(name, sorted(defined - set(vars(builtins))), n=1)
    if close:
        return f"Is it a typo for `{close[0]}`?"
    return (
        "Define it in the exercise cell or in a code cell you add to the notebook, or check "
        "its spelling."
    )
