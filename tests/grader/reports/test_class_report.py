"""The class report sums up a class in one offline page and an item-analysis table.

Everything is built from StudentSummary values: a few numbers and one byte per hidden test.
"""

import csv
import io
from dataclasses import replace
from html.parser import HTMLParser

from grade_builders import (
    CATALOGUE,
    CLASS,
    grade_for,
    missing_grade,
    summary_for,
    summary_with_points,
)

from grader.model import CATEGORIES, MISSING, RUN_STATUSES, TestOutcome
from grader.reports import class_report
from grader.reports.class_figures import STUDENT_NAMES_SHOWN
from grader.reports.summary import StudentSummary, summarize

pytestmark = []


class PageReader(HTMLParser):
    """Collect the bars of each chart (by its CSS class), every tag seen and the table rows."""

    def __init__(self):
        super().__init__()
        self.bars, self.tags, self.chart, self.rows = {}, set(), None, []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.add(tag)
        if tag == "svg":
            self.chart = attributes["class"].split()[-1]
            self.bars[self.chart] = []
        elif tag == "rect" and "bar" in attributes.get("class", ""):
            self.bars[self.chart].append(attributes)
        elif tag == "tr" and "data-student" in attributes:
            self.rows.append(attributes)


def read_page(page):
    reader = PageReader()
    reader.feed(page)
    return reader


def page_for(summaries, catalogue=CATALOGUE):
    return class_report.class_report_html(summaries, catalogue)


def counts(bars):
    return {bar.label: bar.value for bar in bars}


def test_a_class_that_mostly_passes_is_spread_over_fine_bands_with_full_marks_apart():
    scores = [70, 70, 70, 69.5, 68.2, 67.57, 66.1, 65.0, 64.99, 61.3, 58.0]
    summaries = [replace(CLASS[0], student=f"s{i}", score=s) for i, s in enumerate(scores)]
    bars = class_report.score_bands(summaries)
    assert bars[-1].label == "full marks" and bars[-1].value == 3
    assert bars[0].label.startswith("58")  # the bands start at the lowest score, not at 0
    occupied = [bar for bar in bars[:-1] if bar.value]
    assert len(occupied) >= 6  # eight scores below full marks, hardly two in one band
    assert sum(bar.value for bar in bars) == len(scores)
    width = float(bars[0].label.split("–")[1]) - float(bars[0].label.split("–")[0])
    assert width <= 1


def test_a_spread_class_gets_bands_from_zero_and_never_more_than_the_limit():
    scores = [0, 3.81, 34.41, 67.57, 70]
    summaries = [replace(CLASS[0], student=f"s{i}", score=s) for i, s in enumerate(scores)]
    bars = class_report.score_bands(summaries)
    assert bars[0].label.startswith("0–")
    assert len(bars) - 1 <= class_report.MAX_BANDS
    assert [bar.value for bar in bars if bar.value] == [1, 1, 1, 1, 1]
    assert bars[-1].title == "Full marks (70 points): 1 student"


def test_a_band_includes_its_lower_bound_only():
    scores = [60, 60.49, 60.5]
    summaries = [replace(CLASS[0], student=f"s{i}", score=s) for i, s in enumerate(scores)]
    bars = counts(class_report.score_bands(summaries))
    assert bars["60–60.5"] == 2 and bars["60.5–61"] == 1


def test_each_category_has_its_distribution_and_share_of_students_at_full_marks():
    points = [
        [10, 10, 10, 10, 10, 10, 10],
        [10, 5.5, 10, 0, 10, 10, 9.99],
        [0, 10, 10, 0, 10, 10, 10],
        [10, 10, 10, 10, 10, 10, 10],
    ]
    summaries = [summary_with_points(f"s{i}", p) for i, p in enumerate(points)]
    figures = {f.category: f for f in class_report.category_figures(summaries, CATALOGUE)}
    assert figures["envelope"].at_full_marks == 75.0
    assert figures["vocabulary"].at_full_marks == 50.0
    assert figures["no_retry"].at_full_marks == 75.0  # 9.99 is not full marks
    bands = counts(figures["error_codes"].bands)
    assert bands["5–6"] == 1 and bands["full marks"] == 3
    assert counts(figures["no_retry"].bands)["9–10"] == 1
    assert figures["error_codes"].average == (10 + 5.5 + 10 + 10) / 4


def test_students_who_sent_nothing_are_listed_but_left_out_of_the_figures():
    missing = summarize(missing_grade("bob"), CATALOGUE)
    figures = {f.category: f for f in class_report.category_figures([CLASS[0], missing], CATALOGUE)}
    assert figures["envelope"].at_full_marks == 100.0
    assert sum(bar.value for bar in class_report.score_bands([CLASS[0], missing])) == 1
    page = page_for([CLASS[0], missing])
    assert "1 students graded" in page and "1 student on the roster who sent nothing" in page
    assert [row["data-student"] for row in read_page(page).rows] == ["ada", "bob"]


def test_for_each_hidden_test_the_students_who_answered_it_wrongly_most_first():
    failures = class_report.test_failures(CLASS, CATALOGUE)
    assert [(f.category, f.description, f.students) for f in failures] == [
        ("envelope", "The id comes back <unchanged>.", (("linus", 2), ("grace", 1))),
        ("ownership", "The handler gets its own copy.", (("grace", 1),)),
    ]
    assert failures[0].cases == 2 and failures[0].test_id == "envelope/test_id"


def test_runs_that_stopped_are_not_wrong_answers_but_are_listed_apart():
    assert all("zed" not in dict(f.students) for f in class_report.test_failures(CLASS, CATALOGUE))
    assert class_report.stopped_runs(CLASS) == [
        ("zed", "the run stopped: timed out; 4 tests timed out")
    ]
    crashed = summarize(grade_for("ada", ["passed", "crash", "passed", "passed"]), CATALOGUE)
    assert class_report.stopped_runs([crashed]) == [("ada", "the run finished; 1 test crashed")]


def test_the_item_analysis_has_a_row_per_student_and_a_column_per_test_case():
    not_judged = summarize(
        grade_for("eve", ["passed", "not_judged", "failed", "memory"]), CATALOGUE
    )
    missing = summarize(missing_grade("bob"), CATALOGUE)
    text = class_report.item_analysis_csv([*CLASS, not_judged, missing], CATALOGUE)
    rows = {row["student"]: row for row in csv.DictReader(io.StringIO(text))}
    assert list(rows["ada"])[3:] == [test.test_id for test in CATALOGUE]
    assert [rows["grace"][t.test_id] for t in CATALOGUE] == ["1", "0", "1", "0"]
    assert [rows["eve"][t.test_id] for t in CATALOGUE] == ["1", "", "0", "0"]
    assert [rows["bob"][t.test_id] for t in CATALOGUE] == ["", "", "", ""]
    assert rows["bob"]["status"] == MISSING and rows["zed"]["score"] == "0.00"


def test_a_summary_keeps_one_byte_per_hidden_test_and_no_outcome():
    grade = grade_for("ada", ["passed", "failed", "not_judged", "timeout"])
    summary = summarize(grade, CATALOGUE)
    assert summary.verdicts == bytes([0, 1, 8, 2])  # indexes into TEST_STATUSES
    assert summary.failed_tests() == [1]
    assert not any(isinstance(value, TestOutcome | tuple) for value in vars_of(summary))


def vars_of(summary):
    return [getattr(summary, name) for name in StudentSummary.__slots__ if name != "points"]


def test_the_students_table_sorts_by_every_column_both_ways_without_a_script():
    page = page_for(CLASS)
    reader = read_page(page)
    assert not reader.tags & {"script", "link", "img", "iframe", "object"}
    ranks = {row["data-student"]: row["style"] for row in reader.rows}
    score_down = {
        s: int(style.split("--score-down:")[1].split(";")[0]) for s, style in ranks.items()
    }
    assert sorted(score_down, key=score_down.get) == ["ada", "linus", "grace", "zed"]
    for column in ("student", "score", "status", *CATEGORIES):
        for direction in ("up", "down"):
            assert f"id='sort-{column}-{direction}'" in page
            rule = f"#sort-{column}-{direction}:checked~table tbody tr"
            assert f"{rule}{{order:var(--{column}-{direction})}}" in page


def test_each_student_links_their_feedback_page_but_one_without_a_page_is_plain_text():
    refused = replace(CLASS[1], student="grace", has_feedback=False)
    page = page_for([CLASS[0], refused])
    assert "<a href='ada/feedback.html'>ada</a>" in page
    assert "href='grace/feedback.html'" not in page


def test_late_columns_appear_only_when_a_due_date_was_given():
    assert "Final" not in page_for(CLASS)
    late = replace(
        CLASS[0], submitted="2026-03-02T01:00:00+00:00", seconds_late=7200, late_penalty=2
    )
    page = page_for([late, CLASS[1]])
    assert (
        "Late (h)" in page and f"<td role='cell' class='number'>{late.score - 2:.2f}</td>" in page
    )


def test_every_run_status_has_words_in_the_table():
    assert set(class_report.RUN_STATUS_WORDS) == set(RUN_STATUSES)


def test_the_page_needs_no_network_and_escapes_what_students_and_tests_say():
    page = page_for([*CLASS, replace(CLASS[0], student="<b>bold</b>")])
    assert "http" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "The id comes back &lt;unchanged&gt;." in page and "<unchanged>" not in page
    assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page


def test_everything_the_page_shows_is_in_its_one_main_landmark():
    page = page_for(CLASS)
    assert page.count("<main>") == 1
    assert "<body>\n<main>\n<h1>" in page and page.endswith("</main>\n</body>\n</html>\n")


def test_the_same_class_in_any_order_gives_the_same_page():
    assert page_for(list(reversed(CLASS))) == page_for(CLASS)


def test_grades_are_summarized_and_the_catalogue_read_off_them():
    grades = [grade_for("ada", ["passed"] * 4), grade_for("grace", ["passed", "failed"] * 2)]
    assert class_report.class_report_html(grades) == page_for(
        [summarize(g, CATALOGUE) for g in grades]
    )


def test_both_files_are_written_and_an_empty_class_still_gets_them(tmp_path):
    path = class_report.write_class_report([], tmp_path, CATALOGUE)
    page = path.read_text(encoding="utf-8")
    assert path.name == "report.html" and "0 students graded" in page
    assert "No hidden test was answered wrongly." in page
    header = (tmp_path / "item-analysis.csv").read_text(encoding="utf-8").splitlines()
    assert header == ["student,status,score," + ",".join(t.test_id for t in CATALOGUE)]


def test_a_time_column_appears_when_the_run_reported_how_long_each_student_took():
    assert "Time (s)" not in page_for(CLASS)
    timed = [replace(CLASS[0], seconds=0.42), CLASS[1]]
    page = page_for(timed)
    assert "Time (s)" in page and "<td role='cell' class='number'>0.4</td>" in page
    assert "#sort-time-down:checked~table tbody tr{order:var(--time-down)}" in page


def test_a_test_names_the_students_who_missed_most_cases_first_then_counts_the_rest():
    one_case = [
        summary_for(f"s{n:03d}", ["failed", "passed", "passed", "passed"]) for n in range(90)
    ]
    both_cases = [
        summary_for(f"t{n:03d}", ["failed", "failed", "passed", "passed"]) for n in range(5)
    ]
    failure = class_report.test_failures([*one_case, *both_cases], CATALOGUE)[0]
    shown = STUDENT_NAMES_SHOWN
    assert failure.total == 95 and len(failure.students) == shown
    assert failure.students[:6] == (*((f"t{n:03d}", 2) for n in range(5)), ("s000", 1))
    assert failure.students[-1] == (f"s{shown - 6:03d}", 1)
    page = page_for([*one_case, *both_cases])
    assert f"and {95 - shown} more (see item-analysis.csv)" in page
    assert "<span class='count'>95 students</span>" in page


def test_ties_sort_by_student_id_lowest_first_and_highest_first_alike():
    tied = [
        replace(CLASS[0], student=name, score=score)
        for name, score in [("dee", 50.0), ("ada", 60.0), ("cy", 50.0), ("bob", 60.0)]
    ]
    rows = read_page(page_for(tied)).rows

    def order(sort):
        place = {
            r["data-student"]: int(r["style"].split(f"--{sort}:")[1].split(";")[0]) for r in rows
        }
        return sorted(place, key=place.get)

    assert order("score-up") == ["cy", "dee", "ada", "bob"]
    assert order("score-down") == ["ada", "bob", "cy", "dee"]
    assert order("student-down") == ["dee", "cy", "bob", "ada"]
    assert order("envelope-up") == order("envelope-down") == ["ada", "bob", "cy", "dee"]


def test_a_student_without_a_verdict_for_some_tests_has_empty_cells_for_them():
    short = replace(CLASS[0], student="amy", verdicts=bytes([0, 1]))
    text = class_report.item_analysis_csv([short], CATALOGUE)
    assert text.splitlines()[1] == f"amy,completed,{short.score:.2f},1,0,,"


# What students and tests can put on the class page, each trying to break out of where it lands:
# a quoted attribute (the row's data-student, the link to the feedback page), a text node, code.
ATTACKS = {
    "student": "x' onmouseover='alert(1)\"><script>alert(2)</script>",
    "description": "</summary><img src=x onerror=alert(3)>",
    "test": "t</code><iframe src=//evil>",
}


class Markup(HTMLParser):
    """The page as a browser builds it: each element with its attribute names, and its text."""

    def __init__(self, page):
        super().__init__()
        self.elements, self.text, self.students = [], [], []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, tuple(name for name, _value in attrs)))
        self.students += [value for name, value in attrs if name == "data-student"]

    def handle_data(self, data):
        self.text.append(data)


def class_page(words):
    """Return the page of a class whose every student and test carries `words`."""
    catalogue = [
        replace(test, test_id=test.test_id + words["test"], description=words["description"])
        for test in CATALOGUE
    ]
    grades = [
        grade_for(
            words["student"] + " 1", ["failed", "failed", "passed", "failed"], catalogue=catalogue
        ),
        grade_for(words["student"] + " 2", ["timeout"], "timeout", catalogue=catalogue),
    ]
    summaries = [replace(summarize(g, catalogue), has_feedback=True) for g in grades]
    return Markup(page_for(summaries, catalogue))


def test_what_students_and_tests_say_is_shown_as_text_and_never_becomes_markup():
    honest = class_page({field: "plain words" for field in ATTACKS})
    attacked = class_page(ATTACKS)
    # The attacks add no element and no attribute: the page has the honest twin's very shape.
    assert attacked.elements == honest.elements
    assert {"script", "img", "iframe"}.isdisjoint(tag for tag, _names in attacked.elements)
    shown = "".join(attacked.text)
    assert all(words in shown for words in ATTACKS.values())
    student = ATTACKS["student"]
    assert attacked.students == [f"{student} 1", f"{student} 2"]
