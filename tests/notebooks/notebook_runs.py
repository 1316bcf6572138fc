"""Run lesson notebooks in a fresh kernel, as a student would, and read what their cells showed.

Notebooks run in a temporary copy of their folder (the kernel's working directory, where the
setup cell loads the earlier steps), so nothing is written to the repository.
"""

import shutil

import nbformat
from nbclient import NotebookClient

from course.manifest import load_course
from grader import paths

COURSE = load_course()
NOTEBOOKS = [step.notebook for step in COURSE.all_steps]
SOLUTIONS = paths.SOLUTIONS / COURSE.assignment
LESSONS = paths.LESSONS / COURSE.assignment
CELL_TIMEOUT_SECONDS = 60
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def copy_folder(folder, tmp_path):
    """Copy a folder of notebooks into `tmp_path`; return the copy."""
    work = tmp_path / folder.name
    shutil.copytree(folder, work, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return work


def read(work, notebook_name):
    """Read a notebook of the working folder."""
    return nbformat.read(work / notebook_name, as_version=4)


def execute(notebook, work, *, allow_errors=False, only=None):
    """Run `notebook` (or only the cells whose ids are in `only`) in a fresh kernel in `work`.

    Without `allow_errors`, a cell that raises stops the run with CellExecutionError, as Run
    All stops in JupyterLab: the lessons must never do that.
    """
    if only is not None:
        notebook.cells = [cell for cell in notebook.cells if cell.id in only]
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_SECONDS,
        kernel_name="python3",
        allow_errors=allow_errors,
        resources={"metadata": {"path": str(work)}},
    )
    client.execute()
    return notebook


def run_copy(folder, notebook_name, tmp_path, **options):
    """Run one notebook from a temporary copy of `folder`; return it with its outputs."""
    work = copy_folder(folder, tmp_path)
    return execute(read(work, notebook_name), work, **options)


def cell(notebook, cell_id):
    """Return the cell with this id."""
    [found] = [c for c in notebook.cells if c.id == cell_id]
    return found


def code_cells(notebook, suffix=""):
    """Return the notebook's code cells whose id ends with `suffix`."""
    return [c for c in notebook.cells if c.cell_type == "code" and c.id.endswith(suffix)]


def stream(cell_, name):
    """Return what a cell wrote to one stream, "stdout" or "stderr"."""
    return "".join(o.text for o in cell_.outputs if o.output_type == "stream" and o.name == name)


def errors(cell_):
    """Return the error outputs of a cell (an exception it raised)."""
    return [o for o in cell_.outputs if o.output_type == "error"]


def shows_widget(cell_):
    """Return True when the cell displayed a widget."""
    return any(WIDGET_VIEW in o.get("data", {}) for o in cell_.outputs)


def set_source(notebook, cell_id, source):
    """Replace a cell's source in the notebook object (what the kernel runs, not the file)."""
    cell(notebook, cell_id).source = source


def add_own_cell(notebook, after_id, source, cell_id="helper-table"):
    """Add a code cell of the student's own below `after_id`, as JupyterLab would."""
    index = notebook.cells.index(cell(notebook, after_id)) + 1
    notebook.cells.insert(index, nbformat.v4.new_code_cell(source, id=cell_id))


def save(notebook, work, notebook_name):
    """Save the notebook to the working folder, as File → Save Notebook does."""
    nbformat.write(notebook, work / notebook_name)


def solution_source(notebook_name, cell_id):
    """Return an exercise cell's source in the solution notebook."""
    return cell(read(SOLUTIONS, notebook_name), cell_id).source


def finished_lessons(tmp_path):
    """The lessons as a student saves them when done: each exercise cell holds the answer."""
    work = copy_folder(LESSONS, tmp_path)
    for notebook_name in NOTEBOOKS:
        notebook = read(work, notebook_name)
        for lesson_cell in notebook.cells:
            if lesson_cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
                lesson_cell.source = solution_source(notebook_name, lesson_cell.id)
        save(notebook, work, notebook_name)
    return work
