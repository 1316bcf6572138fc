"""The assembly mechanism: what carries forward from each step, run with the supplied code.

One rule decides what a step's notebook carries forward, and both the lessons and the grader
use it (`step_work`): the step's exercise cells and every code cell the student added to the
notebook, in notebook order. The course's own cells (demos, checks, widgets) stay behind.
Later notebooks load the earlier steps through `exercise_cells` and `run_cells` (see
course/status.py), and the grader builds a submission's `invoke_tool` the same way, so what a
student sees working is what gets graded.

This module and course/supplied.py also run beside student code in the grader's worker, so they
use only the standard library.
"""

import ast
import builtins
import difflib
import json
import linecache
import symtable
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

from course import supplied
from course.contract import category_named

STEPS_FILE = Path(__file__).with_name("steps.toml")
# Names every module has, and names only Jupyter provides (graded code runs as plain Python).
MODULE_NAMES = frozenset({"__name__", "__doc__", "__builtins__", "__spec__", "__loader__"})
JUPYTER_NAMES = frozenset({"get_ipython", "display", "In", "Out", "_ih", "_oh"})
STUB = "NotImplementedError"


@dataclass(frozen=True)
class Step:
    """One step of the lesson: a notebook, its exercise cells and the names they define."""

    number: int
    notebook: str
    title: str
    exercises: tuple[str, ...]
    defines: tuple[str, ...]
    categories: tuple[str, ...]

    @property
    def label(self):
        """How messages name this step to a student (a notebook outside the lesson by its name)."""
        return f"Step {self.number} ({self.notebook})" if self.number else self.notebook

    @property
    def module(self):
        """The name of the step's check and explorer modules (course/checks/, course/widgets/).

        One name per idea: a step is named after the grading category it teaches (its first,
        when it teaches two), and a step no category grades after its notebook.
        """
        if self.categories:
            return self.categories[0]
        return self.notebook.removesuffix(".ipynb").split("-", 1)[-1].replace("-", "_")


@dataclass(frozen=True)
class Course:
    """The lesson's assignment name, its graded steps in order, and the practice steps after."""

    assignment: str
    steps: tuple[Step, ...]
    # Steps after the graded ones: they load every graded step and the grader never reads them.
    practice: tuple[Step, ...] = ()

    def step_for_notebook(self, notebook_name):
        """Return the step taught in `notebook_name`, or None for a notebook outside the lesson."""
        return next((s for s in self.all_steps if s.notebook == notebook_name), None)

    def step_defining(self, name):
        """Return the step whose exercise defines `name`, or None."""
        return next((s for s in self.all_steps if name in s.defines), None)

    @property
    def all_steps(self):
        """Every step, graded then practice, in lesson order."""
        return self.steps + self.practice


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
    def filename(self):
        """A pseudo file name that makes tracebacks name the notebook and the cell."""
        if self.own:
            return f"<{self.step.notebook}, your cell {self.ordinal}>"
        return f"<{self.step.notebook}, cell {self.cell_id}>"

    @property
    def label(self):
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

    def problems(self):
        """Return what keeps this step's work from being whole, one sentence each, unlabelled."""
        if self.unreadable:
            return [self.unreadable]
        found = [_missing_cell_message(cell_id) for cell_id in self.missing]
        found += [sentence for _cell_id, sentence in self.copies]
        states = function_states(self)
        # A missing exercise cell already explains the functions it would have defined.
        return found + [d for _n, state, d in states if d and not (state == "missing" and found)]


@dataclass(frozen=True)
class Assembly:
    """The cells that carry forward, the problems found on the way, and each step's work."""

    cells: tuple[ExerciseCell, ...]
    problems: tuple[str, ...]
    works: tuple[StepWork, ...] = ()


class AssemblyError(Exception):
    """A problem with a student's notebooks, explained in a student's words."""

    def _render_traceback_(self):
        # IPython calls this instead of printing a traceback of the course's internals.
        return [f"⚠ {self}"]


def load_course(steps_file=STEPS_FILE):
    """Read the lesson's steps from the course manifest."""
    data = tomllib.loads(Path(steps_file).read_text(encoding="utf-8"))
    entries = [*data["steps"], *data.get("practice", ())]
    steps = tuple(
        Step(
            number=number,
            notebook=entry["notebook"],
            title=entry["title"],
            exercises=tuple(entry["exercises"]),
            defines=tuple(entry["defines"]),
            categories=tuple(category_named(name).name for name in entry["categories"]),
        )
        for number, entry in enumerate(entries, start=1)
    )
    graded = len(data["steps"])
    return Course(assignment=data["assignment"], steps=steps[:graded], practice=steps[graded:])


def supplied_names():
    """Return a fresh dict of the names the course supplies to every exercise cell."""
    return {name: getattr(supplied, name) for name in supplied.__all__}


def cell_id_of(cell):
    """Return a notebook cell's stable id: its nbgrader grade_id, else its nbformat id."""
    nbgrader = cell.get("metadata", {}).get("nbgrader", {})
    return nbgrader.get("grade_id") or cell.get("id")


def is_own_cell(cell):
    """Return True for a code cell that is the student's: one they added, or an editable one.

    The course marks its cells with an nbgrader grade_id; of those, only solution cells are
    the student's to edit (a copy of another step's exercise cell, pasted here, included).
    """
    nbgrader = cell.get("metadata", {}).get("nbgrader")
    if cell.get("cell_type") != "code":
        return False
    if not isinstance(nbgrader, dict) or not nbgrader.get("grade_id"):
        return True
    return bool(nbgrader.get("solution"))


def first_line(source, width=40):
    """Return the first non-blank line of `source`, shortened to `width` characters."""
    line = next((text.strip() for text in source.splitlines() if text.strip()), "")
    return line if len(line) <= width else line[: width - 1] + "…"


def read_notebook_cells(path):
    """Return the cells of the notebook at `path`; raise AssemblyError if it cannot be read."""
    try:
        notebook = json.loads(Path(path).read_text(encoding="utf-8"))
        cells = notebook["cells"]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
        raise AssemblyError(
            f"{Path(path).name} could not be read as a notebook ({type(error).__name__}). "
            "Open it in JupyterLab; if it will not open, start again from a fresh copy "
            "of the lesson."
        ) from None
    if not isinstance(cells, list):
        raise AssemblyError(f"{Path(path).name} has no list of cells, so it is not a notebook.")
    return [cell for cell in cells if isinstance(cell, dict)]


def source_of(cell):
    """Return a notebook cell's source as one string."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def step_work(step, notebook_cells):
    """Apply the carry-forward rule to one step's notebook: the one rule lessons and grader share.

    What carries forward is the step's exercise cells and every other non-empty code cell of the
    student's (one they added, or a copy of another step's exercise cell), in notebook order.
    Of two copies of an exercise cell, the finished one counts (the lower one when both or
    neither are finished), and the other is named in `copies`.
    """
    code = [c for c in notebook_cells if c.get("cell_type") == "code"]
    chosen, copies = _chosen_copies(step, code)
    cells, course_names, ordinal = [], {}, 0
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


def _chosen_copies(step, code):
    """Return ({exercise id: index of the copy that counts}, ((id, sentence), ...))."""
    chosen, copies = {}, []
    for cell_id in step.exercises:
        indexes = [i for i, cell in enumerate(code) if cell_id_of(cell) == cell_id]
        if not indexes:
            continue
        finished = [i for i in indexes if not stubbed_functions(source_of(code[i]))]
        chosen[cell_id] = (finished or indexes)[-1]
        if len(indexes) > 1:
            copies.append((cell_id, _copies_sentence(step, cell_id, indexes, finished)))
    return chosen, tuple(copies)


def _copies_sentence(step, cell_id, indexes, finished):
    count, place = len(indexes), indexes.index((finished or indexes)[-1]) + 1
    which = "the finished one" if 0 < len(finished) < count else "the lowest one, which runs last"
    return (
        f"There are {count} copies of the exercise cell '{cell_id}'. Only one carries "
        f"forward: {which} (copy {place} of {count}, counting from the top). Delete the other "
        "copies and save, so the notebook you run is the one that is graded."
    )


def read_step(folder, step):
    """Return the StepWork of `step` as saved in `folder`; a missing file is said, not raised."""
    path = Path(folder) / step.notebook
    if not path.is_file():
        return StepWork(
            step, unreadable=f"the notebook is missing from the folder {path.parent.name}/."
        )
    try:
        return step_work(step, read_notebook_cells(path))
    except AssemblyError as error:
        return StepWork(step, unreadable=str(error))


def exercise_cells(folder, course, *, before=None):
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


def assemble(works, course):
    """Return the Assembly of some steps' work: their cells and every problem, said plainly."""
    cells = tuple(cell for work in works for cell in work.cells)
    problems = [f"{work.step.label}: {problem}" for work in works for problem in work.problems()]
    problems += undefined_name_problems(works, course)
    return Assembly(cells, tuple(problems), tuple(works))


def _missing_cell_message(cell_id):
    return (
        f"the exercise cell '{cell_id}' is missing; it was deleted, or its id "
        "was changed. Undo the deletion (Edit → Undo Cell Operation) or copy the cell back "
        "from a fresh copy of the lesson, then save the notebook."
    )


def notebook_exercise_cells(path, course):
    """Collect what one notebook carries forward, by the same rule as a step's notebook.

    A notebook named like a step is that step's work. Any other notebook (a whole lesson in one
    file, say) carries the exercise cells of every step and the student's own cells, in
    notebook order, each exercise cell labelled with its step.
    """
    notebook_cells = read_notebook_cells(path)
    step = course.step_for_notebook(Path(path).name)
    if step is None:
        exercises = tuple(cell_id for s in course.steps for cell_id in s.exercises)
        step = Step(0, Path(path).name, Path(path).stem, exercises, (), ())
    work = step_work(step, notebook_cells)
    if all(cell.own for cell in work.cells):
        raise AssemblyError(
            f"{Path(path).name} holds none of the lesson's exercise cells, so there is nothing "
            "to grade in it."
        )
    cells = tuple(_as_step_cell(cell, course) for cell in work.cells)
    return assemble([replace(work, cells=cells, missing=())], course)


def _as_step_cell(cell, course):
    """Label an exercise cell of a whole-lesson notebook with the step it belongs to."""
    owner = next((s for s in course.steps if cell.cell_id in s.exercises), None)
    if cell.own or owner is None or cell.step.number:
        return cell
    return ExerciseCell(owner, cell.cell_id, cell.source)


def run_cells(cells, namespace):
    """Run cells in `namespace`, as a notebook would; return the problems, if any.

    A cell is anything with `label`, `filename` and `source`, so the grader can run a whole
    `.py` submission through the same path as a notebook's cells.

    The supplied names are put in first and applied again after every cell, so a cell that
    redefines them cannot replace the course's copy.
    """
    problems = []
    namespace.update(supplied_names())
    for cell in cells:
        problem = _run_cell(cell, namespace)
        if problem:
            problems.append(problem)
        namespace.update(supplied_names())
    return tuple(problems)


def _run_cell(cell, namespace):
    lines = cell.source.splitlines(keepends=True)
    # Registering the source lets tracebacks show the student's own lines.
    linecache.cache[cell.filename] = (len(cell.source), None, lines, cell.filename)
    where = cell.label
    try:
        code = compile(cell.source, cell.filename, "exec")
    except SyntaxError as error:
        return _syntax_message(where, error, lines)
    try:
        exec(code, namespace)
    except Exception as error:
        return (
            f"{where} stopped with {type(error).__name__} when it ran: {error}. "
            "Run that cell in its notebook to see where, fix it and save."
        )
    return None


def _syntax_message(where, error, lines):
    line = lines[error.lineno - 1].strip() if error.lineno and error.lineno <= len(lines) else ""
    if line.startswith(("%", "!")):
        return (
            f"{where} uses the Jupyter command {line.split()[0]!r} on line {error.lineno}. "
            "Cells that carry forward run as plain Python, in later notebooks and at grading, "
            "where such commands do not exist: delete that line (or the cell) and save."
        )
    return f"{where} has a syntax error on line {error.lineno}: {error.msg}. Fix it and save."


# Static reading of cells: what they define, use and leave unfinished. Nothing here runs them.


def _tree(source):
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def defined_names(source):
    """Return the names a cell binds at its top level (assignments, defs, classes, imports)."""
    try:
        table = symtable.symtable(source, "<cell>", "exec")
    except (SyntaxError, ValueError):
        return set()
    names = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    return names | _declared_globals(table)


def _declared_globals(table):
    names = set()
    for child in table.get_children():
        names |= {s.get_name() for s in child.get_symbols() if s.is_declared_global()}
        names |= _declared_globals(child)
    return names


def used_globals(source):
    """Return the global names a cell reads, at its top level or inside its functions."""
    try:
        table = symtable.symtable(source, "<cell>", "exec")
    except (SyntaxError, ValueError):
        return set()
    return _reads(table, top=True)


def _reads(table, top=False):
    names = {
        s.get_name() for s in table.get_symbols() if s.is_referenced() and (top or s.is_global())
    }
    for child in table.get_children():
        names |= _reads(child)
    return names


def stubbed_functions(source):
    """Return the top-level functions of a cell whose body still raises NotImplementedError."""
    tree = _tree(source)
    if tree is None:
        return set()
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and any(_raises_stub(statement) for statement in node.body)
    }


def _raises_stub(statement):
    if not isinstance(statement, ast.Raise) or statement.exc is None:
        return False
    raised = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
    return isinstance(raised, ast.Name) and raised.id == STUB


def _star_import(source):
    tree = _tree(source)
    return tree is not None and any(
        isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
        for node in ast.walk(tree)
    )


def function_states(work):
    """Return (name, state, sentence) for each name the step defines; sentence "" when finished.

    The state is "finished", "unfinished" (the function still raises NotImplementedError) or
    "missing". A name is judged by the last cell that carries forward and defines it, the one
    that runs last; a missing one is compared with the step's own definitions, for a rename.
    """
    states = []
    for name in work.step.defines:
        defining = [cell for cell in work.cells if name in defined_names(cell.source)]
        if not defining:
            states.append((name, "missing", _missing_function_message(work, name)))
        elif name in stubbed_functions(defining[-1].source):
            where = defining[-1].label.removeprefix(f"{work.step.label}, ")
            states.append(
                (
                    name,
                    "unfinished",
                    f"`{name}` is not finished yet: {where} still raises NotImplementedError.",
                )
            )
        else:
            states.append((name, "finished", ""))
    return states


def _missing_function_message(work, name):
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


def undefined_name_problems(works, course):
    """Return one sentence per name a carried cell uses that nothing carried defines.

    Names of later steps, supplied names, builtins and module names count as defined. When a
    cell of the course defines the name, the sentence points there; when it looks like a typo
    of a known name, it says which.
    """
    cells = [cell for work in works for cell in work.cells]
    if any(_star_import(cell.source) for cell in cells):
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


def _where_defined(name, course_names, defined):
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
