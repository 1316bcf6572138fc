"""The class report opens offline in headless Chromium, draws what the grades say, and sorts.

A small class is graded into a temporary folder, with a roster naming one student who sent
nothing; the page is opened from file:// and its charts are measured as drawn, against figures
worked out here from grades.csv. The students' table is sorted by clicking its headings, as an
instructor would, and a student's link opens their feedback page. A screenshot is saved in
test-artifacts/screenshots/.
"""

import csv
import shutil

import pytest
from grader_cli import run_grader
from lab_pages import SCREENSHOTS
from selenium.webdriver.common.by import By

from grader.model import CATEGORIES
from grader.paths import SAMPLE_CLASS, SUBMISSIONS

pytestmark = [pytest.mark.browser, pytest.mark.bwrap, pytest.mark.slow]

SAMPLE = SAMPLE_CLASS / "submitted"
ENDLESS = SUBMISSIONS / "adversarial" / "timeout" / "infinite-loop-at-import.py"
GRADED = ("ada", "alan", "grace", "linus", "endless")
ABSENT = "bob"


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    """Grade four sample students, one whose code never finishes loading, and a roster."""
    folder = tmp_path_factory.mktemp("class")
    for student in GRADED[:4]:
        shutil.copytree(SAMPLE / student, folder / student)
    shutil.copy(ENDLESS, folder / "endless.py")
    roster = folder.parent / "students.csv"
    roster.write_text("\n".join(["id", *GRADED, ABSENT]) + "\n", encoding="utf-8")
    out = tmp_path_factory.mktemp("grades")
    completed = run_grader(
        "grade", folder, "--out", out, "--jobs", "2", "--timeout", "8", "--roster", roster
    )
    assert completed.returncode == 0, completed.stderr
    return out


@pytest.fixture(scope="module")
def report_page(graded_class, browser):
    browser.get((graded_class / "report.html").as_uri())
    return browser


def grades(out):
    with (out / "grades.csv").open(encoding="utf-8", newline="") as stream:
        return {row["student"]: row for row in csv.DictReader(stream)}


def bars(driver, chart):
    return driver.find_elements(By.CSS_SELECTOR, f"svg.{chart} rect.bar")


def drawn(driver, element, side):
    return driver.execute_script(f"return arguments[0].getBoundingClientRect().{side};", element)


def students_as_shown(driver):
    """Return the students' table rows' ids, top to bottom as drawn."""
    rows = driver.find_elements(By.CSS_SELECTOR, "table.students tbody tr")
    return [row.get_attribute("data-student") for row in sorted(rows, key=lambda r: r.rect["y"])]


def sort_by(driver, column, direction):
    driver.find_element(By.CSS_SELECTOR, f"label[for='sort-{column}-{direction}']").click()


def test_the_score_chart_counts_every_graded_student_once_with_full_marks_apart(
    report_page, graded_class
):
    rows = grades(graded_class)
    found = bars(report_page, "chart-scores")
    values = [float(bar.get_attribute("data-value")) for bar in found]
    assert sum(values) == len(GRADED)  # the absent student is in no band
    full = sum(row["score"] == row["max_score"] for row in rows.values())
    assert found[-1].get_attribute("data-label") == "full marks" and values[-1] == full
    for bar, value in zip(found, values, strict=True):
        assert (drawn(report_page, bar, "height") > 0) == (value > 0)


def test_the_category_chart_shows_the_share_of_students_at_full_marks(report_page, graded_class):
    rows = [row for row in grades(graded_class).values() if row["status"] != "missing"]
    found = bars(report_page, "chart-categories")
    assert [bar.get_attribute("data-label") for bar in found] == list(CATEGORIES)
    for category, bar in zip(CATEGORIES, found, strict=True):
        share = 100 * sum(row[category] == "10.00" for row in rows) / len(rows)
        assert float(bar.get_attribute("data-value")) == round(share, 1), category
        assert (drawn(report_page, bar, "width") > 0) == (share > 0), category


def test_clicking_a_heading_sorts_the_students_without_any_script(report_page, graded_class):
    rows = grades(graded_class)
    assert not report_page.find_elements(By.TAG_NAME, "script")
    assert students_as_shown(report_page) == sorted(rows)
    sort_by(report_page, "score", "down")
    by_score = sorted(rows, key=lambda s: (-float(rows[s]["score"]), s))
    assert students_as_shown(report_page) == by_score
    sort_by(report_page, "unicode_boundary", "up")
    by_category = sorted(rows, key=lambda s: (float(rows[s]["unicode_boundary"]), s))
    assert students_as_shown(report_page) == by_category
    sort_by(report_page, "student", "down")
    assert students_as_shown(report_page) == sorted(rows, reverse=True)
    sort_by(report_page, "student", "up")


def test_the_absent_student_is_in_the_table_with_status_missing_and_no_link(report_page):
    row = report_page.find_element(By.CSS_SELECTOR, f"tr[data-student='{ABSENT}']")
    assert "missing" in row.text and not row.find_elements(By.TAG_NAME, "a")


def test_each_name_opens_that_students_feedback_page(report_page, graded_class):
    links = report_page.find_elements(By.CSS_SELECTOR, "table.students a")
    assert sorted(link.text for link in links) == sorted(GRADED)
    target = next(link for link in links if link.text == "grace").get_attribute("href")
    report_page.get(target)
    assert report_page.title == "Feedback for grace"
    report_page.get((graded_class / "report.html").as_uri())


def test_each_wrongly_answered_test_opens_on_the_students_who_missed_it(report_page):
    first = report_page.find_element(By.CSS_SELECTOR, "details.test-failure")
    assert not first.find_element(By.TAG_NAME, "p").is_displayed()
    first.find_element(By.TAG_NAME, "summary").click()
    names = first.find_element(By.TAG_NAME, "p").text
    assert names.startswith("Answered wrongly by ") and "ada" not in names


def test_the_endless_run_is_listed_as_timed_out(report_page):
    stopped = report_page.find_element(By.CSS_SELECTOR, "table.stopped-runs").text
    assert "endless" in stopped and "timed out" in stopped
    assert "ada" not in stopped


def test_the_charts_carry_titles_a_screen_reader_can_read(report_page):
    for chart in ("chart-scores", "chart-categories", "chart-points-envelope"):
        svg = report_page.find_element(By.CSS_SELECTOR, f"svg.{chart}")
        assert svg.get_attribute("role") == "img"
        label = report_page.find_element(By.ID, svg.get_attribute("aria-labelledby"))
        assert label.get_attribute("textContent")


def test_a_screenshot_of_the_report_is_saved(report_page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / "class-report.png"
    path.unlink(missing_ok=True)
    height = report_page.execute_script("window.scrollTo(0, 0); return document.body.scrollHeight")
    report_page.set_window_size(1400, min(height + 100, 6000))
    assert report_page.save_screenshot(str(path))
    assert path.stat().st_size > 1000
