"""nbgrader's autograde, run unchanged on the course, records the grader's own scores."""

import pytest
from conftest import ABSENT_STUDENT, gradebook_category_scores

from grader.model import CATEGORIES

pytestmark = [pytest.mark.kernel, pytest.mark.nbgrader, pytest.mark.bwrap, pytest.mark.slow]

# The whole class is autograded in one run; this leaves room for a busy two-core machine.
AUTOGRADE_SECONDS_LIMIT = 300


def test_exported_totals_equal_the_grader_scores_for_every_student(graded_course):
    exported = graded_course.export_rows()
    graded = graded_course.grader_rows()
    assert set(graded) == set(graded_course.students)
    for student, row in graded.items():
        assert round(float(exported[student]["score"]), 2) == float(row["score"]), student
        assert float(exported[student]["max_score"]) == float(row["max_score"]), student


def test_gradebook_holds_the_grader_points_per_category(graded_course):
    graded = graded_course.grader_rows()
    autograded = set(graded) - {"dora"}
    for student in autograded:
        scores = gradebook_category_scores(graded_course.root, student)
        expected = {category: float(graded[student][category]) for category in CATEGORIES}
        assert {c: round(s, 2) for c, s in scores.items()} == expected, student


def test_the_class_spans_full_partial_and_zero_scores(graded_course):
    graded = graded_course.grader_rows()
    assert float(graded["ada"]["score"]) == 70.0
    assert float(graded["alan"]["score"]) == 0.0
    assert 0.0 < float(graded["grace"]["score"]) < 70.0
    assert float(graded["grace"]["unicode_boundary"]) < 10.0


def test_one_autograde_run_grades_the_class_in_reasonable_time(graded_course):
    assert graded_course.autograde_seconds < AUTOGRADE_SECONDS_LIMIT
    assert ABSENT_STUDENT in graded_course.export_rows()
