"""The assembly mechanism: what carries forward from each step, ready to run with the supplied code.

One rule decides what a step's notebook carries forward, and both the lessons and the grader
use it (`step_work`): the step's exercise cells and every code cell the student added to the
notebook, in notebook order. The course's own cells (demos, checks, widgets) stay behind.
Later notebooks load the earlier steps through `exercise_cells` and `run_cells` (see
course/carry/setup_cell.py), and the grader builds a submission's `invoke_tool` the same way, so
what a student sees working is what gets graded.

The seams: course/manifest.py reads the steps, notebooks.py a saved notebook, analysis.py what a
cell defines and uses, diagnose.py says what is wrong, and execute.py runs the cells (all four
beside this module). This module and all of those also run beside student code in the
grader's worker, so they use only the standard library.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from course.carry.analysis import defined_names, stubbed_functions
from course.carry.diagnose import function_states, missing_cell_message, undefined_name_problems
from course.carry.notebooks import (
    AssemblyError,
    NotebookCell,
    cell_id_of,
    first_line,
    is_own_cell,
    read_notebook_cells,
    source_of,
)
from course.manifest import Course, Step

__all__ = [
    "Assembly",
    "ExerciseCell",
    "StepWork",
    "assemble",
    "exercise_cells",
    "missing_step",
    "notebook_exercise_cells",
    "read_step",
    "step_work",
    "whole_notebook",
]


@dataclass(frozen=True)
class ExerciseCell:
    """The source of one cell that carries forward, tagged with where it came from.

    `own` marks a code cell the student added; `ordinal` numbers those within their notebook.
    """

    step: Step
    cell_id: str
    source: str
    own: bool = False
    ordinal: int = 0

    @property
    def filename(self) -> str:
        """A pseudo file name that makes tracebacks name the notebook and the cell."""
        if self.own:
            return f"<{self.step.notebook}, your cell {self.ordinal}>"
        return f"<{self.step.notebook}, cell {self.cell_id}>"

    @property
    def label(self) -> str:
        """How messages name this cell to a student."""
        if self.own:
            return f'{self.step.label}, your cell "{first_line(self.source)}"'
        return f"{self.step.label}, cell '{self.cell_id}'"


@dataclass(frozen=True)
class StepWork:
    """What one step's saved notebook carries forward, and what keeps it from being whole.

    `unreadable` says why nothing could be read (the notebook is missing or broken); `copies`
    pairs an exercise cell id found more than once with a sentence saying which copy counts;
    `course_names` pairs names the course's own cells define with the id of the cell. Sentences
    leave out the step's label, which whoever shows them puts first.
    """

    step: Step
    cells: tuple[ExerciseCell, ...] = ()
    missing: tuple[str, ...] = ()
    copies: tuple[tuple[str, str], ...] = ()
    unreadable: str | None = None
    course_names: tuple[tuple[str, str], ...] = ()

    def problems(self) -> list[str]:
        """Return what keeps this step's work from being whole, one sentence each, unlabelled."""
        if self.unreadable:
            return [self.unreadable]
        found = [missing_cell_message(cell_id) for cell_id in self.missing]
        found += [sentence for _cell_id, sentence in self.copies]
        # A missing exercise cell already explains the functions it would have defined.
        return found + [
            state.sentence
            for state in function_states(self)
            if state.sentence and not (state.state == "missing" and found)
        ]


@dataclass(frozen=True)
class Assembly:
    """The cells that carry forward, the problems found on the way, and each step's work."""

    cells: tuple[ExerciseCell, ...]
    problems: tuple[str, ...]
    works: tuple[StepWork, ...] = ()


def step_work(step: Step, notebook_cells: Sequence[NotebookCell]) -> StepWork:
    """Apply the carry-forward rule to one step's notebook: the one rule lessons and grader share.

    What carries forward is the step's exercise cells and every other non-empty code cell of the
    student's (one they added, or a copy of another step's exercise cell), in notebook order.
    Of two copies of an exercise cell, the finished one counts (the lower one when both or
    neither are finished), and the other is named in `copies`.
    """
    code = [c for c in notebook_cells if c.get("cell_type") == "code"]
    chosen, copies = _chosen_copies(step, code)
    cells: list[ExerciseCell] = []
    course_names: dict[str, str] = {}
    ordinal = 0
    for index, cell in enumerate(code):
        cell_id, source = cell_id_of(cell), source_of(cell)
        if cell_id in step.exercises:
            if chosen.get(cell_id) == index:
                cells.append(ExerciseCell(step, cell_id, source))
        elif is_own_cell(cell) and source.strip():
            ordinal += 1
            cells.append(ExerciseCell(step, str(cell_id), source, own=True, ordinal=ordinal))
        elif not is_own_cell(cell):
            for name in defined_names(source):
                course_names.setdefault(name, str(cell_id))
    missing = tuple(cell_id for cell_id in step.exercises if cell_id not in chosen)
    return StepWork(step, tuple(cells), missing, copies, None, tuple(course_names.items()))


def _chosen_copies(
    step: Step, code: Sequence[NotebookCell]
) -> tuple[dict[str, int], tuple[tuple[str, str], ...]]:
    """Return ({exercise id: index of the copy that counts}, ((id, sentence), ...))."""
    chosen, copies = {}, []
    for cell_id in step.exercises:
        indexes = [i for i, cell in enumerate(code) if cell_id_of(cell) == cell_id]
        if not indexes:
            continue
        finished = [i for i in indexes if not stubbed_functions(source_of(code[i]))]
        chosen[cell_id] = (finished or indexes)[-1]
        if len(indexes) > 1:
            copies.append((cell_id, _copies_sentence(cell_id, indexes, finished)))
    return chosen, tuple(copies)


def _copies_sentence(cell_id: str, indexes: list[int], finished: list[int]) -> str:
    count, place = len(indexes), indexes.index((finished or indexes)[-1]) + 1
    which = "the finished one" if 0 < len(finished) < count else "the lowest one, which runs last"
    return (
        f"There are {count} copies of the exercise cell '{cell_id}'. Only one carries "
        f"forward: {which} (copy {place} of {count}, counting from the top). Delete the other "
        "copies and save, so the notebook you run is the one that is graded."
    )


def read_step(folder: str | Path, step: Step) -> StepWork:
    """Return the StepWork of `step` as saved in `folder`; a missing file is said, not raised."""
    path = Path(folder) / step.notebook
    if not path.is_file():
        return missing_step(step, path.parent.name)
    try:
        return step_work(step, read_notebook_cells(path))
    except AssemblyError as error:
        return StepWork(step, unreadable=str(error))


def missing_step(step: Step, folder_name: str) -> StepWork:
    """Return the StepWork of a step whose notebook is not in the folder `folder_name`."""
    return StepWork(step, unreadable=f"the notebook is missing from the folder {folder_name}/.")


def exercise_cells(folder: str | Path, course: Course, *, before: str | None = None) -> Assembly:
    """Collect what every step in `folder` carries forward, in lesson order.

    With `before` (a notebook name), stop at that step: a notebook loads only earlier steps.
    Problems (a missing notebook or cell, two copies of a cell, an unfinished or missing
    function, a name defined nowhere) are collected, not raised, so one broken step does not
    hide the work done in the others.
    """
    works = []
    for step in course.steps:
        if step.notebook == before:
            break
        works.append(read_step(folder, step))
    return assemble(works, course)


def assemble(works: Iterable[StepWork], course: Course) -> Assembly:
    """Return the Assembly of some steps' work: their cells and every problem, said plainly."""
    works = tuple(works)
    cells = tuple(cell for work in works for cell in work.cells)
    problems = [f"{work.step.label}: {problem}" for work in works for problem in work.problems()]
    problems += undefined_name_problems(works, course)
    return Assembly(cells, tuple(problems), works)


def notebook_exercise_cells(path: str | Path, course: Course) -> Assembly:
    """Collect what one notebook carries forward, by the same rule as a step's notebook.

    A notebook named like a step is that step's work. Any other notebook (a whole lesson in one
    file, say) carries the exercise cells of every step and the student's own cells, in
    notebook order, each exercise cell labelled with its step.
    """
    return whole_notebook(read_notebook_cells(path), Path(path).name, course)


def whole_notebook(notebook_cells: Sequence[NotebookCell], name: str, course: Course) -> Assembly:
    """Collect what the cells of one notebook, saved as `name`, carry forward (see above)."""
    step = course.step_for_notebook(name)
    if step is None:
        exercises = tuple(cell_id for s in course.steps for cell_id in s.exercises)
        step = Step(0, name, Path(name).stem, exercises, (), ())
    work = step_work(step, notebook_cells)
    if all(cell.own for cell in work.cells):
        raise AssemblyError(
            f"{name} holds none of the lesson's exercise cells, so there is nothing to grade in it."
        )
    cells = tuple(_as_step_cell(cell, course) for cell in work.cells)
    return assemble([replace(work, cells=cells, missing=())], course)


def _as_step_cell(cell: ExerciseCell, course: Course) -> ExerciseCell:
    """Label an exercise cell of a whole-lesson notebook with the step it belongs to."""
    owner = next((s for s in course.steps if cell.cell_id in s.exercises), None)
    if cell.own or owner is None or cell.step.number:
        return cell
    return ExerciseCell(owner, cell.cell_id, cell.source)
