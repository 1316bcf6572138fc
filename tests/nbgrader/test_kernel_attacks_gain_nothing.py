"""A student's cell that attacks from nbgrader's kernel gains nothing and harms no one.

In one real `nbgrader autograde` run, two students answer as grace does (a budget bug) and
attack in their first cell (attacks.py), graded after ada and before grace. One copies the
solutions over its working, submitted and autograded folders, puts the lessons over grace's
submission, zeroes the gradebook, and writes beside the course and into its config. The other
reads the gradebook (directly, and through a link nbgrader copied as the gradebook itself), the
exchange, ada's submitted and autograded notebooks, the solutions and the hidden tests, and
sends what it read to a port on the instructor's machine. The kernel is confined
(grader/integrations/nbgrader_kernel.py): every move fails, each attacker scores what grace
scores, and ada's and grace's grades are those of a run without the attackers (graded_course).
"""

import json

import pytest
from attacks import LINKED_GRADEBOOK, attack_outcomes
from classroom import ASSIGNMENT
from conftest import (
    FIRST_NOTEBOOK,
    READER,
    TWIN,
    WRITER,
    gradebook_category_scores,
    gradebook_rows,
)

from grader.model import CATEGORIES

pytestmark = [pytest.mark.kernel, pytest.mark.nbgrader, pytest.mark.bwrap, pytest.mark.slow]

WRITER_MOVES = {
    "copy the solutions into its working folder",
    "copy the solutions over its submitted folder",
    "copy the solutions over its autograded folder",
    "put the lessons over a classmate's submission",
    "zero every grade in the gradebook",
    "write a file beside the course",
    "change the course's nbgrader_config.py",
}
READER_MOVES = {
    "read the gradebook",
    "read the gradebook through a link",
    "list the exchange",
    "read a classmate's submission",
    "read a classmate's autograded notebook",
    "read the solutions",
    "read the hidden tests",
    "import the hidden tests",
    "send what it read to the instructor's machine",
}


def outcomes(root, student):
    """Return {move: outcome} that `student`'s first notebook showed when autograded."""
    path = root / "autograded" / student / ASSIGNMENT / f"{FIRST_NOTEBOOK}.ipynb"
    return attack_outcomes(json.loads(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize(("attacker", "moves"), [(WRITER, WRITER_MOVES), (READER, READER_MOVES)])
def test_every_move_of_the_attack_ran_in_its_kernel_and_was_blocked(
    attacked_course, attacker, moves
):
    assert outcomes(attacked_course.root, attacker) == dict.fromkeys(moves, "blocked")


@pytest.mark.parametrize("attacker", [WRITER, READER])
def test_an_attacker_scores_no_more_than_its_honest_twin_in_any_category(attacked_course, attacker):
    twin = gradebook_category_scores(attacked_course.root, TWIN)
    scores = gradebook_category_scores(attacked_course.root, attacker)
    assert twin["unicode_boundary"] < 10.0  # there was something to gain
    for category in CATEGORIES:
        assert scores[category] <= twin[category], category


@pytest.mark.parametrize("student", ["ada", TWIN])
def test_every_other_students_grades_are_those_of_a_run_without_the_attack(
    attacked_course, graded_course, student
):
    attacked = gradebook_rows(attacked_course.root, student)
    assert attacked == gradebook_rows(graded_course.root, student)
    assert sum(attacked.values()) > 0


def test_no_file_of_the_course_changed_and_nothing_was_written_beside_it(attacked_course):
    assert attacked_course.after == attacked_course.before
    written = list(attacked_course.root.parent.rglob("written-by-attacker.txt"))
    assert written == []


def test_nothing_reached_the_instructors_machine_over_the_network(attacked_course):
    assert attacked_course.connections == 0


def test_nbgrader_copied_the_linked_gradebook_which_the_kernel_never_saw(attacked_course):
    copied = attacked_course.root / "autograded" / READER / ASSIGNMENT / LINKED_GRADEBOOK
    assert copied.read_bytes().startswith(b"SQLite format 3")  # nbgrader followed the link
    assert outcomes(attacked_course.root, READER)["read the gradebook through a link"] == "blocked"
