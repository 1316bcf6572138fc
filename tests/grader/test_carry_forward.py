"""The grader carries forward what the lessons carry forward, and names what is defined nowhere.

Two students finished every step with the reference answers. In step 2 both moved the table of
codes out of `failure_code`: Ada into a cell of her own below the exercise cell, which carries
forward, so she earns every point; Grace into a copy of the course's demo cell, which does not,
so her `failure_code` uses a name nothing graded defines, and her feedback says which, where.
"""

import json
import shutil
from pathlib import Path

import pytest

from course.manifest import load_course
from grader.batch import run
from grader.intake.discover import Found
from grader.intake.load import load
from grader.reports.feedback import feedback_blocks, render_markdown
from grader.score import score

pytestmark = [pytest.mark.bwrap]

COURSE = load_course()
SOLUTIONS = Path(__file__).resolve().parents[2] / "solutions" / COURSE.assignment
STEP_2 = COURSE.steps[1]
TABLE_VERSION = [
    "def failure_code(exc):\n",
    '    """Return the stable code of an exception, from a table."""\n',
    "    for cls, code in CODE_FOR:\n",
    "        if isinstance(exc, cls):\n",
    "            return code\n",
    '    return "tool_failed"\n',
]
TABLE = [
    "CODE_FOR = (\n",
    '    (InvalidInputError, "invalid_input"),\n',
    '    (PermissionDeniedError, "permission_denied"),\n',
    '    (NotFoundError, "not_found"),\n',
    ")\n",
]


def student_folder(root, student, table_cell):
    """The reference lesson, with step 2's table moved into `table_cell` below its exercise."""
    folder = root / student / COURSE.assignment
    shutil.copytree(SOLUTIONS, folder)
    path = folder / STEP_2.notebook
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = notebook["cells"]
    [index] = [i for i, cell in enumerate(cells) if cell["id"] == "failure-code"]
    cells[index]["source"] = TABLE_VERSION
    cells.insert(index + 1, table_cell)
    path.write_text(json.dumps(notebook, indent=1), encoding="utf-8")
    return folder


def own_cell():
    """A code cell the student added in JupyterLab: no nbgrader metadata."""
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": "code-table",
        "metadata": {},
        "outputs": [],
        "source": TABLE,
    }


def copied_demo_cell():
    """A copy of a course cell, edited: it keeps the course's locked nbgrader metadata."""
    nbgrader = {"grade": False, "grade_id": "leak-demo", "locked": True, "solution": False}
    return dict(own_cell(), id="leak-demo-copy", metadata={"nbgrader": nbgrader})


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Grade both students in one run; return {student: (Grade, feedback in Markdown)}."""
    root = tmp_path_factory.mktemp("class")
    folders = {
        "ada": student_folder(root, "ada", own_cell()),
        "grace": student_folder(root, "grace", copied_demo_cell()),
    }
    submissions = [load(Found(s, f, "lessons"), COURSE) for s, f in folders.items()]
    results = run.run_submissions(submissions, run.RunSettings())
    hidden = run.hidden_tests()
    grades = {result.submission.student: score(result, hidden) for result in results}
    return {s: (g, render_markdown(feedback_blocks(g, COURSE))) for s, g in grades.items()}


def test_a_helper_cell_added_below_an_exercise_is_graded(graded):
    grade, feedback = graded["ada"]
    submission = grade.run.submission
    labels = [unit.label for unit in submission.units]
    assert 'Step 2 (02-failure-codes.ipynb), your cell "CODE_FOR = ("' in labels
    assert submission.problems == ()
    assert grade.score == grade.max_score == 70
    assert "Notes on your submission" not in feedback


def test_a_name_defined_only_in_a_course_cell_is_named_in_the_feedback(graded):
    grade, feedback = graded["grace"]
    note = (
        "Step 2 (02-failure-codes.ipynb), cell 'failure-code' uses `CODE_FOR`, but nothing that "
        "carries forward defines it. The course's cell 'leak-demo' in 02-failure-codes.ipynb "
        "defines it"
    )
    assert any(problem.startswith(note) for problem in grade.run.submission.problems)
    notes_section = feedback.split("## Notes on your submission", 1)[1].split("## Results", 1)[0]
    assert note in notes_section
    # Under the category that lost the points, the note comes with the hint to revisit step 2.
    error_codes = feedback.split("### error_codes", 1)[1].split("###", 1)[0]
    assert "Revisit Step 2" in error_codes
    assert "Start with what the grader found in that step's saved work:" in error_codes
    assert "uses `CODE_FOR`" in error_codes
    assert grade.score < grade.max_score
