"""In a real browser, JupyterLab set up as the handout sets it up asks nothing about news.

The issue: "Would you like to get notified about official Jupyter news?" covered the widgets.
The handout installs tooling/student/overrides.json where JupyterLab reads its defaults (its
application settings folder; tests/tooling/test_handout_install.py checks that the install puts
it there). Here JupyterLab starts with no user settings, once with that folder holding the
handout's file and once with it empty: only the second asks.
"""

import shutil
import time

import pytest
from lab_pages import PAGE_SECONDS, kernel_is_ready, wait_for
from selenium.webdriver.common.by import By

from grader.paths import PROJECT_ROOT

pytestmark = [pytest.mark.kernel, pytest.mark.browser, pytest.mark.slow]

OVERRIDES = PROJECT_ROOT / "tooling" / "student" / "overrides.json"
NEWS = "official Jupyter news"
ASKED_WITHIN_SECONDS = 15


def asks_about_news(browser, lab):
    """Open the first notebook and return whether the news question shows within a while."""
    browser.get(lab.url("lab/tree/01-the-envelope.ipynb"))
    wait_for(browser, kernel_is_ready, "the notebook to open", PAGE_SECONDS)
    deadline = time.monotonic() + ASKED_WITHIN_SECONDS
    while time.monotonic() < deadline:
        if NEWS in browser.find_element(By.TAG_NAME, "body").text:
            return True
        time.sleep(0.5)
    return False


def test_the_handouts_settings_keep_the_news_question_away(browser, start_lab, tmp_path):
    handout_settings, no_settings = tmp_path / "handout-settings", tmp_path / "no-settings"
    handout_settings.mkdir()
    no_settings.mkdir()
    shutil.copy2(OVERRIDES, handout_settings / "overrides.json")
    with start_lab("plain", f"--LabApp.app_settings_dir={no_settings}") as lab:
        assert asks_about_news(browser, lab), "JupyterLab did not ask: the test shows nothing"
    with start_lab("handout", f"--LabApp.app_settings_dir={handout_settings}") as lab:
        assert not asks_about_news(browser, lab)
