"""The class report sums up a class in one offline page: charts, failing tests, stopped runs."""

from dataclasses import replace
from html.parser import HTMLParser
from typing import NamedTuple

from grader import class_report
from grader.model import CATEGORIES, RunResult, Submission, TestOutcome
from grader.score import score


class Hidden(NamedTuple):
    test_id: str
    category: str
    description: str
    case: str = ""


HIDDEN = [
    Hidden("id-ok", "envelope", "The id comes back <unchanged>."),
    Hidden("id-fail", "envelope", "The id comes back <unchanged>."),
    Hidden("unknown", "error_codes", "An unknown tool gives unknown_tool."),
    Hidden("copy", "ownership", "The handler gets its own copy."),
]


def grade_for(student, statuses, run_status="completed"):
    submission = Submission(student=student, path=f"{student}.py", kind="python", units=())
    outcomes = tuple(
        TestOutcome(test_id=t, category=c, status=s, description=d)
        for (t, c, d, _), s in zip(HIDDEN, statuses, strict=True)
    )
    return score(RunResult(submission, outcomes, run_status), HIDDEN)


def with_score(grade, points):
    return replace(grade, score=points)


class ChartReader(HTMLParser):
    """Collect the bars of each chart, by the chart's CSS class, and every tag name seen."""

    def __init__(self):
        super().__init__()
        self.bars, self.tags, self.chart = {}, set(), None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.add(tag)
        if tag == "svg":
            self.chart = attributes["class"].split()[-1]
            self.bars[self.chart] = []
        elif tag == "rect" and "bar" in attributes.get("class", ""):
            self.bars[self.chart].append(attributes)


def read_charts(page):
    reader = ChartReader()
    reader.feed(page)
    return reader


CLASS = [
    grade_for("ada", ["passed"] * 4),
    grade_for("grace", ["passed", "failed", "passed", "failed"]),
    grade_for("linus", ["failed", "failed", "passed", "passed"]),
    grade_for("zed", ["timeout", "timeout", "timeout", "timeout"], run_status="timeout"),
]


def test_scores_fall_in_seven_bands_and_full_marks_in_the_top_one():
    grades = [with_score(CLASS[0], points) for points in (0, 9.99, 10, 35, 69.99, 70, 70)]
    bars = class_report.score_bins(grades)
    assert [bar.label for bar in bars][:2] == ["0–10", "10–20"]
    assert [bar.value for bar in bars] == [2, 1, 0, 1, 0, 0, 3]
    assert bars[-1].title == "60–70 points: 3 students"


def test_each_category_gets_the_share_of_its_tests_passed_over_the_class():
    rates = {bar.label: bar.value for bar in class_report.category_pass_rates(CLASS)}
    assert list(rates) == list(CATEGORIES)
    assert rates["envelope"] == 37.5  # 3 of 8 envelope tests passed
    assert rates["error_codes"] == 75.0
    assert rates["ownership"] == 50.0
    assert rates["no_retry"] == 0.0  # no test at all: nothing passed


def test_most_failed_tests_count_each_student_once_and_only_wrong_answers():
    ranked = class_report.most_failed_tests(CLASS)
    assert ranked == [
        ("envelope", "The id comes back <unchanged>.", 2),
        ("ownership", "The handler gets its own copy.", 1),
    ]


def test_stopped_runs_name_the_students_whose_code_did_not_finish():
    rows = class_report.stopped_runs(CLASS)
    assert rows == [("zed", "the run stopped: timed out; 4 tests timed out")]


def test_a_completed_run_with_a_crashed_test_is_listed_too():
    crashed = grade_for("ada", ["passed", "crash", "passed", "passed"])
    assert class_report.stopped_runs([crashed]) == [("ada", "the run finished; 1 test crashed")]


def test_the_page_draws_one_bar_per_band_and_per_category():
    charts = read_charts(class_report.class_report_html(CLASS))
    assert len(charts.bars["chart-scores"]) == class_report.SCORE_BINS
    assert [bar["data-label"] for bar in charts.bars["chart-categories"]] == list(CATEGORIES)
    heights = [float(bar["height"]) for bar in charts.bars["chart-scores"]]
    values = [float(bar["data-value"]) for bar in charts.bars["chart-scores"]]
    assert sum(values) == len(CLASS)
    assert all((height > 0) == (value > 0) for height, value in zip(heights, values, strict=True))


def test_the_page_needs_no_network_and_runs_no_script():
    page = class_report.class_report_html(CLASS)
    tags = read_charts(page).tags
    assert not tags & {"script", "link", "img", "iframe", "object"}
    assert "http" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_the_page_escapes_descriptions_and_lists_failures_and_stopped_runs():
    page = class_report.class_report_html(CLASS)
    assert "The id comes back &lt;unchanged&gt;." in page
    assert "<unchanged>" not in page
    assert "<td>zed</td>" in page


def test_the_same_class_in_any_order_gives_the_same_page():
    first = class_report.class_report_html(CLASS)
    assert class_report.class_report_html(list(reversed(CLASS))) == first


def test_an_empty_class_still_gives_a_page(tmp_path):
    path = class_report.write_class_report([], tmp_path)
    page = path.read_text(encoding="utf-8")
    assert path.name == "report.html"
    assert "0 students graded" in page
    assert "No hidden test was answered wrongly." in page
