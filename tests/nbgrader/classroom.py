"""A small class of nbgrader submissions, built from the lessons and the reference answers.

Each student's folder is the generated lessons with some exercise cells answered, as a student
would save them: the reference answer, a deliberate bug, nothing at all, or code that tries to
cheat the autograder or kill its kernel.
"""

import json
import shutil
from pathlib import Path

from course.manifest import load_course
from grader.paths import LESSONS, SOLUTIONS

ASSIGNMENT = load_course().assignment
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")

# Checks the text encodes, then measures characters instead of UTF-8 bytes: a bug in the
# unicode_boundary category only.
BYTES_MEASURED = 'size = len(text.encode("utf-8"))'
CHARACTERS_MEASURED = 'text.encode("utf-8")\n        size = len(text)'

# Ends the kernel (and the grader's worker) the moment the step 1 exercise cell runs.
KILLS_KERNEL = "import os\n\nos._exit(1)\n"

# Every way a cell could fake its grade inside the nbgrader kernel: rewrite the grade cells
# before they run so that each shows full points, put a fake bridge module in sys.modules, and
# print to stderr after every cell. It is harmless where no IPython kernel runs it, such as the
# grader's worker.
FORGERY = """

try:
    import sys
    import types

    from IPython import get_ipython

    def _forge(lines):
        if lines and lines[0].startswith("# Grading fills in this cell"):
            return ["print('every hidden test passed')\\n", "10.0\\n"]
        return lines

    _fake = types.ModuleType("grader.integrations.nbgrader_bridge")
    _fake.category_report = lambda grade, category: ("forged", 10.0)
    sys.modules["grader.integrations.nbgrader_bridge"] = _fake
    get_ipython().input_transformers_post.append(_forge)
    get_ipython().events.register(
        "post_run_cell", lambda result: print("forged", file=sys.stderr)
    )
except Exception:
    pass
"""

# A package that shadows the grader from the student's folder, where the kernel runs.
SHADOW_BRIDGE = "def category_report(grade, category):\n    return 'forged', 10.0\n"


def reference_answers():
    """Return the reference exercise cells, {cell id: source}, without the solution markers."""
    answers = {}
    for path in sorted((SOLUTIONS / ASSIGNMENT).glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            nbgrader = cell.get("metadata", {}).get("nbgrader", {})
            if cell["cell_type"] == "code" and nbgrader.get("solution"):
                lines = "".join(cell["source"]).splitlines()
                kept = [line for line in lines if line.strip() not in MARKERS]
                answers[nbgrader["grade_id"]] = "\n".join(kept) + "\n"
    return answers


def write_student(submitted, student, answers, *, deleted=(), extra_files=None):
    """Write submitted/<student>/<assignment>/ from the lessons with `answers` filled in.

    `deleted` names cells the student removed; `extra_files` maps relative paths to text the
    student added to the folder.
    """
    folder = Path(submitted) / student / ASSIGNMENT
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for lesson in sorted((LESSONS / ASSIGNMENT).glob("*.ipynb")):
        notebook = json.loads(lesson.read_text(encoding="utf-8"))
        cells = []
        for cell in notebook["cells"]:
            cell_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if cell_id in deleted:
                continue
            if cell_id in answers:
                cell = dict(cell, source=answers[cell_id].splitlines(keepends=True))
            cells.append(cell)
        notebook["cells"] = cells
        text = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
        (folder / lesson.name).write_text(text, encoding="utf-8")
    for relative_path, text in (extra_files or {}).items():
        path = folder / relative_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def answer_in_place(folder, answers, edits=None):
    """Fill in the notebooks in `folder` as a student would: exercise cells take `answers`.

    `edits` maps the grade_id of any other cell (a locked one, say) to the text it is changed to.
    """
    changes = dict(answers, **(edits or {}))
    for path in sorted(Path(folder).glob("*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        for cell in notebook["cells"]:
            cell_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if cell_id in changes:
                cell["source"] = changes[cell_id].splitlines(keepends=True)
        path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def budget_bug(answers):
    """Return `answers` with step 4 measuring characters instead of UTF-8 bytes."""
    assert BYTES_MEASURED in answers["budget-error"], "the reference budget_error changed"
    budget_bug = answers["budget-error"].replace(BYTES_MEASURED, CHARACTERS_MEASURED)
    return dict(answers, **{"budget-error": budget_bug})


def write_class(submitted):
    """Write the class's submissions; return {student: what the submission is}."""
    answers = reference_answers()
    buggy = budget_bug(answers)
    students = {
        "ada": ("the reference answers", answers, {}),
        "alan": ("the untouched lessons", {}, {}),
        "barbara": (
            "the reference without the call-once cell",
            answers,
            {"deleted": ["call-once"]},
        ),
        "dora": (
            "a step 1 cell that kills the kernel",
            dict(answers, **{"make-envelope": KILLS_KERNEL + answers["make-envelope"]}),
            {},
        ),
        # Every trap at once: she is graded before grace, who must not be affected.
        "eve": (
            "a budget bug, code forging the grade cells in the kernel, three grade cells "
            "deleted and a shadow grader package added",
            dict(buggy, **{"invoke-tool": answers["invoke-tool"] + FORGERY}),
            {
                "deleted": ["grade-envelope", "grade-redaction", "grade-no-retry"],
                "extra_files": {
                    "grader/__init__.py": "",
                    "grader/integrations/__init__.py": "",
                    "grader/integrations/nbgrader_bridge.py": SHADOW_BRIDGE,
                },
            },
        ),
        "grace": ("a budget bug", buggy, {}),
    }
    for student, (_, student_answers, options) in students.items():
        write_student(submitted, student, student_answers, **options)
    return {student: description for student, (description, _, _) in students.items()}
