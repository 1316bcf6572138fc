"""Feedback shows each category's result but never the hidden region nbgrader would copy."""

import html
import re

import pytest
from conftest import GRADED_NOTEBOOK, HIDDEN_REGION_TEXT, nbgrader

pytestmark = [pytest.mark.kernel, pytest.mark.nbgrader, pytest.mark.bwrap, pytest.mark.slow]


def page_text(page):
    """Return the text a reader sees on an HTML page: tags removed, entities decoded."""
    return html.unescape(re.sub(r"<[^>]*>", "", page))


def test_feedback_pages_show_results_without_the_hidden_region(graded_course):
    for student in ("ada", "alan", "barbara", "eve", "grace"):
        page = page_text(graded_course.feedback_html(student))
        assert "hidden tests passed" in page, student
        for text in HIDDEN_REGION_TEXT:
            assert text not in page, f"{student}'s feedback shows {text!r}"


def test_feedback_names_what_a_failed_category_missed(graded_course):
    page = page_text(graded_course.feedback_html("grace"))
    assert "unicode_boundary:" in page
    assert "Not yet:" in page


def test_nbgrader_without_the_course_config_would_copy_the_hidden_region(graded_course):
    # The trap the course's GenerateFeedback setting exists for: without it, the page shows
    # the grade cells' hidden source.
    nbgrader(
        graded_course.root,
        "generate_feedback",
        "bounded_results",
        "--student=ada",
        "--force",
        "--CourseDirectory.feedback_directory=feedback-default",
        "--GenerateFeedback.preprocessors=["
        "'nbgrader.preprocessors.GetGrades',"
        "'nbconvert.preprocessors.CSSHTMLHeaderPreprocessor']",
    )
    folder = graded_course.root / "feedback-default" / "ada" / "bounded_results"
    page = page_text((folder / f"{GRADED_NOTEBOOK}.html").read_text(encoding="utf-8"))
    for text in HIDDEN_REGION_TEXT:
        assert text in page
