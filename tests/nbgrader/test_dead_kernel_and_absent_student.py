"""A kernel killed by a submission, or no submission at all, exports 0.0; the others are graded.

nbgrader exports both as 0.0, like a real zero, so the grader's report is where an instructor
learns why: it labels the dead kernel `crash` (the absent student is simply not in it).
"""

import pytest
from conftest import ABSENT_STUDENT, gradebook_category_scores

pytestmark = [pytest.mark.kernel, pytest.mark.nbgrader, pytest.mark.bwrap, pytest.mark.slow]


def test_a_killed_kernel_and_an_absent_student_both_export_zero(graded_course):
    exported = graded_course.export_rows()
    assert float(exported["dora"]["score"]) == 0.0
    assert float(exported[ABSENT_STUDENT]["score"]) == 0.0


def test_autograde_reports_the_killed_kernel_and_grades_the_students_after_it(graded_course):
    assert graded_course.autograde.returncode != 0
    assert "for student 'dora'" in graded_course.autograde.stderr
    for student in ("eve", "grace"):
        assert sum(gradebook_category_scores(graded_course.root, student).values()) > 0


def test_the_grader_labels_the_killed_kernel_a_crash(graded_course):
    graded = graded_course.grader_rows()
    assert graded["dora"]["status"] == "crash"
    assert float(graded["dora"]["score"]) == 0.0
    assert ABSENT_STUDENT not in graded
