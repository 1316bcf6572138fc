"""Where the kernel cannot be confined, autograde runs no student code unless told by name.

bubblewrap is left off PATH. Autograde stops with one line before the first kernel, and leaves
the student to the next run; with c.ConfinedExecute.run_student_code_with_instructor_rights
set, it runs them with the instructor's rights, and then the writer's attack (attacks.py), which
confinement stops in the attacked course, copies the solutions over its submission (its first
notebook's outputs are lost in the copy) and gets it full marks.
"""

import pytest
from classroom import ASSIGNMENT
from conftest import WRITER, gradebook_category_scores

pytestmark = [pytest.mark.kernel, pytest.mark.nbgrader, pytest.mark.bwrap, pytest.mark.slow]

OPT_OUT_SETTING = "run_student_code_with_instructor_rights"
REFUSAL = (
    "Autograde stopped before running any student code: bubblewrap is not installed, so the "
    "notebooks' kernels cannot be confined"
)


def error_lines(done):
    """Return the lines nbgrader logged as errors."""
    return [line for line in done.stderr.splitlines() if "| ERROR]" in line]


def test_without_bubblewrap_autograde_stops_in_one_line_before_any_kernel(unconfined_course):
    refused = unconfined_course.refused
    assert refused.returncode != 0
    [line] = error_lines(refused)
    assert REFUSAL in line
    # The fix first; running unconfined is named last, with what it risks.
    assert line.index("Install bubblewrap (make sandbox-deps).") < line.index(OPT_OUT_SETTING)
    assert "run_student_code_with_instructor_rights = True runs it unconfined" in line
    assert "Traceback" not in refused.stderr
    assert "Kernel" not in refused.stderr


def test_the_setting_that_names_the_risk_runs_student_code_with_the_instructors_rights(
    unconfined_course,
):
    done = unconfined_course.unconfined
    assert done.returncode == 0, done.stderr
    assert "runs student code with your rights (bubblewrap is not installed" in done.stderr
    assert sum(gradebook_category_scores(unconfined_course.root, WRITER).values()) > 0


def test_unconfined_the_writers_attack_gets_the_full_marks_confinement_denies_it(
    unconfined_course, attacked_course
):
    root = unconfined_course.root
    for solution in (root / "solutions" / ASSIGNMENT).glob("*.ipynb"):
        submitted = root / "submitted" / WRITER / ASSIGNMENT / solution.name
        assert submitted.read_bytes() == solution.read_bytes(), solution.name
    assert (root / "written-by-attacker.txt").is_file()
    unconfined = gradebook_category_scores(root, WRITER)
    confined = gradebook_category_scores(attacked_course.root, WRITER)
    assert sum(unconfined.values()) == 70.0
    assert sum(confined.values()) < 70.0
