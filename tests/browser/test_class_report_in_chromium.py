"""The class report opens offline in headless Chromium and draws what the grades say.

A small class is graded into a temporary folder; the page is opened from file:// and its
charts are measured as drawn, against figures worked out here from grades.csv and each
student's results.json. A screenshot is saved in test-artifacts/screenshots/.
"""

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from grader.model import CATEGORIES

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE = REPO_ROOT / "fixtures" / "sample-class" / "submitted"
ENDLESS = REPO_ROOT / "fixtures" / "submissions" / "adversarial" / "infinite-loop-at-import.py"
SCREENSHOTS = REPO_ROOT / "test-artifacts" / "screenshots"
BANDS = 7


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    """Grade three sample students and one whose code never finishes loading."""
    folder = tmp_path_factory.mktemp("class")
    for student in ("ada", "alan", "grace", "linus"):
        shutil.copytree(SAMPLE / student, folder / student)
    shutil.copy(ENDLESS, folder / "endless.py")
    out = tmp_path_factory.mktemp("grades")
    command = [sys.executable, "-m", "grader", "grade", str(folder), "--out", str(out)]
    completed = subprocess.run(
        [*command, "--jobs", "2", "--timeout", "8"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return out


@pytest.fixture(scope="module")
def report_page(graded_class, browser):
    browser.get((graded_class / "report.html").as_uri())
    return browser


def bars(driver, chart):
    return driver.find_elements(By.CSS_SELECTOR, f"svg.{chart} rect.bar")


def drawn(driver, element, side):
    return driver.execute_script(f"return arguments[0].getBoundingClientRect().{side};", element)


def scores(out):
    with (out / "grades.csv").open(encoding="utf-8", newline="") as stream:
        return {row["student"]: float(row["score"]) for row in csv.DictReader(stream)}


def test_the_score_chart_has_a_bar_per_band_drawn_only_where_students_are(
    report_page, graded_class
):
    counts = [0] * BANDS
    for points in scores(graded_class).values():
        counts[min(int(points // 10), BANDS - 1)] += 1
    found = bars(report_page, "chart-scores")
    assert len(found) == BANDS
    assert [float(bar.get_attribute("data-value")) for bar in found] == counts
    for bar, count in zip(found, counts, strict=True):
        assert (drawn(report_page, bar, "height") > 0) == (count > 0)


def test_the_category_chart_has_a_bar_per_category_as_long_as_its_pass_rate(
    report_page, graded_class
):
    passed = dict.fromkeys(CATEGORIES, 0)
    total = dict.fromkeys(CATEGORIES, 0)
    for path in graded_class.glob("*/results.json"):
        for test in json.loads(path.read_text(encoding="utf-8"))["tests"]:
            total[test["tags"][0]] += 1
            passed[test["tags"][0]] += test["status"] == "passed"
    found = bars(report_page, "chart-categories")
    assert [bar.get_attribute("data-label") for bar in found] == list(CATEGORIES)
    widths = [drawn(report_page, bar, "width") for bar in found]
    for category, width in zip(CATEGORIES, widths, strict=True):
        assert (width > 0) == (passed[category] > 0), category
    # The longest bar is the category with the best pass rate.
    best = max(CATEGORIES, key=lambda c: passed[c] / total[c])
    assert widths[CATEGORIES.index(best)] == max(widths)


def test_the_charts_carry_titles_a_screen_reader_can_read(report_page):
    for chart in ("chart-scores", "chart-categories"):
        svg = report_page.find_element(By.CSS_SELECTOR, f"svg.{chart}")
        assert svg.get_attribute("role") == "img"
        label = report_page.find_element(By.ID, svg.get_attribute("aria-labelledby"))
        assert label.get_attribute("textContent")


def test_the_most_failed_tests_and_the_endless_run_are_listed(report_page):
    items = report_page.find_elements(By.CSS_SELECTOR, "ol.most-failed li")
    assert 0 < len(items) <= 10
    assert all(item.text.endswith(("student", "students")) for item in items)
    stopped = report_page.find_element(By.CSS_SELECTOR, "table.stopped-runs").text
    assert "endless" in stopped and "timed out" in stopped
    assert "ada" not in stopped


def test_a_screenshot_of_the_report_is_saved(report_page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / "class-report.png"
    path.unlink(missing_ok=True)
    assert report_page.save_screenshot(str(path))
    assert path.stat().st_size > 1000
