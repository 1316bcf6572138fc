"""Feedback pages tell a student each category's result and what to revisit, in plain words."""

from dataclasses import replace
from html.parser import HTMLParser

from grade_builders import grade_for as shared_grade_for

from grader.model import NOT_JUDGED, HiddenTest
from grader.reports import feedback
from grader.score import score

pytestmark = []

HIDDEN = [
    HiddenTest("envelope-id", "envelope", "the envelope keeps the request's id"),
    HiddenTest(
        "redaction-message", "redaction", "an exception's message stays out of the envelope"
    ),
]


def grade_for(statuses, run_status="completed", catalogue=HIDDEN, **options):
    """Return the Grade of Ada's lessons, whose run of `catalogue` ended with `statuses`."""
    return shared_grade_for(
        "ada", statuses, run_status, catalogue=catalogue, kind="lessons", path="ada", **options
    )


def markdown(grade):
    return feedback.render_markdown(feedback.feedback_blocks(grade))


def test_each_category_result_is_listed():
    text = markdown(grade_for(["passed", "failed"]))
    assert "| envelope | 10.00 / 10.00 | 1 of 1 |" in text
    assert "| redaction | 0.00 / 10.00 | 0 of 1 |" in text


def test_a_failure_gets_the_concept_and_the_step_to_revisit():
    text = markdown(grade_for(["passed", "failed"]))
    assert "### redaction" in text
    assert "Revisit Step 2" in text
    assert "02-failure-codes.ipynb" in text
    assert "- an exception's message stays out of the envelope (failed)" in text
    assert "### envelope" not in text


def test_a_perfect_result_says_so():
    assert "Every hidden test passed" in markdown(grade_for(["passed", "passed"]))


def test_a_run_that_stopped_early_gives_its_reason_instead_of_category_hints():
    grade = grade_for([], run_status="timeout", reason="Your file never finished loading.")
    text = markdown(grade)
    assert "Your file never finished loading." in text
    assert "Grading stopped early" in text
    assert "Revisit Step" not in text


def test_problems_found_in_the_notebooks_are_listed():
    text = markdown(grade_for(["passed", "passed"], problems=("A cell is missing.",)))
    assert "- A cell is missing." in text


def test_the_html_page_escapes_what_it_shows():
    grade = grade_for(["passed", "failed"], problems=("<script>alert(1)</script>",))
    page = feedback.render_html(feedback.feedback_blocks(grade), "Feedback for ada")
    assert page.startswith("<!DOCTYPE html>")
    assert "<script>" not in page
    assert "&lt;script&gt;" in page
    assert "<h3>redaction</h3>" in page


def test_everything_the_html_page_shows_is_in_its_one_main_landmark():
    page = feedback.render_html(feedback.feedback_blocks(grade_for(["failed"])), "Feedback")
    assert page.count("<main>") == 1
    assert "<body>\n<main>\n<h1>" in page and page.endswith("</main>\n</body>\n</html>\n")


def test_the_failed_cases_of_one_test_are_named_on_one_line():
    words = {"a": "for the id 0", "b": 'for the id ""', "c": "for the id 7"}
    cases = [
        HiddenTest(f"envelope-id[{n}]", "envelope", "The id comes back unchanged.", words[n])
        for n in "abc"
    ]
    grade = grade_for(["failed", "failed", "passed"], catalogue=cases)
    text = markdown(grade)
    assert text.count("The id comes back unchanged") == 1
    assert '- The id comes back unchanged — for the id 0; for the id "" (failed)' in text


def test_a_generated_failure_shows_its_smallest_example_on_its_line():
    grade = grade_for(["passed", "failed"])
    example = "the envelope carries the message (a tool raised ValueError('<private message>'))"
    failed = replace(grade.run.outcomes[1], example=example)
    run = replace(grade.run, outcomes=(grade.run.outcomes[0], failed))
    text = markdown(score(run, HIDDEN))
    line = "- an exception's message stays out of the envelope (failed)"
    assert f"{line} Smallest failing example: {example}." in text
    assert "Smallest failing example" not in markdown(grade)


def test_a_test_that_stepped_aside_is_not_listed_as_work_to_do():
    cases = [HiddenTest("envelope-id", "envelope", "The id comes back unchanged.")]
    text = markdown(grade_for([NOT_JUDGED], catalogue=cases))
    assert "The id" not in text.split("## What to work on")[1]
    assert "0 of 0 (1 not judged here)" in text


# What a student or a test can put on a feedback page, each trying to break out of where it
# lands: a text node, the page's title, or (for the id) a quoted attribute.
ATTACKS = {
    "student": "x' onmouseover='alert(1)\"><script>alert(2)</script>",
    "problem": "</li></ul><img src=x onerror=alert(3)>",
    "reason": "</p><script>alert(4)</script><p>",
    "description": "</title><style>*{display:none}</style>",
    "case": "for the id <iframe src=//evil>",
}


class Markup(HTMLParser):
    """The page as a browser builds it: each element with its attribute names, and its text."""

    def __init__(self, page):
        super().__init__()
        self.elements, self.text = [], []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, tuple(name for name, _value in attrs)))

    def handle_data(self, data):
        self.text.append(data)


def feedback_page(words):
    catalogue = [HiddenTest("envelope-id", "envelope", words["description"], words["case"])]
    grade = shared_grade_for(
        words["student"],
        ["failed"],
        "timeout",
        catalogue=catalogue,
        reason=words["reason"],
        problems=(words["problem"],),
    )
    return Markup(feedback.render_html(feedback.feedback_blocks(grade), words["student"]))


def test_what_students_and_tests_say_is_shown_as_text_and_never_becomes_markup():
    honest = feedback_page({field: "plain words" for field in ATTACKS})
    attacked = feedback_page(ATTACKS)
    # The attacks add no element and no attribute: the page has the honest twin's very shape.
    assert attacked.elements == honest.elements
    assert {"script", "img", "iframe"}.isdisjoint(tag for tag, _names in attacked.elements)
    shown = "".join(attacked.text)
    assert all(words.rstrip(".") in shown for words in ATTACKS.values())
