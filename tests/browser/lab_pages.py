"""Drive JupyterLab pages in Chromium as a student would: open, run, type, click, read.

Every wait has a deadline and fails with a screenshot (test-artifacts/screenshots/) and a
sentence saying what never happened.
"""

from pathlib import Path

import pytest
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as visible
from selenium.webdriver.support.ui import WebDriverWait

from grader.paths import PROJECT_ROOT

SCREENSHOTS = PROJECT_ROOT / "test-artifacts" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
# Headless, and quiet: without the background-networking flags Chromium tries Google's hosts,
# which this closed network refuses.
CHROMIUM_ARGUMENTS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
)
PAGE_SECONDS = 90
UPDATE_SECONDS = 20


def shoot(driver, name):
    """Save a screenshot of the page as it is now."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))


def wait_for(driver, condition, what, seconds=UPDATE_SECONDS):
    """Wait until `condition(driver)` is truthy; fail saying `what` never happened."""
    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.2).until(condition)
    except TimeoutException:
        shoot(driver, "timeout")
        pytest.fail(f"Timed out after {seconds}s waiting for {what}.")


def kernel_is_ready(driver):
    """Return True once the status bar shows the notebook's kernel connected and idle."""
    # The status bar reads "No Kernel | Initializing", then "<kernel> | Connecting", then
    # "<kernel> | Idle"; the toolbar's execution indicator alone can read idle before a kernel
    # is attached, and a Run All issued then is silently dropped.
    bars = driver.find_elements(By.CSS_SELECTOR, ".jp-StatusBar-Widget")
    text = " ".join(bar.text for bar in bars)
    return "| Idle" in text and "No Kernel" not in text


def run_all(driver):
    """Run every cell from the Run menu, as a student would."""
    menu = driver.find_element(By.XPATH, "//li[contains(@class,'lm-MenuBar-item')][.='Run']")
    menu.click()
    item = (By.XPATH, "//li[contains(@class,'lm-Menu-item')][.//*[.='Run All Cells']]")
    wait_for(driver, visible.element_to_be_clickable(item), "Run All Cells in the Run menu").click()


def open_and_run_all(driver, lab_server, notebook, ready_css):
    """Open `notebook`, wait for an idle kernel, Run All, and wait for `ready_css` to show."""
    driver.get(lab_server.url(f"lab/tree/{notebook}"))
    wait_for(
        driver, kernel_is_ready, "the notebook to open with a connected, idle kernel", PAGE_SECONDS
    )
    run_all(driver)
    shown = wait_for(
        driver,
        visible.visibility_of_element_located((By.CSS_SELECTOR, ready_css)),
        f"{ready_css} to render",
        PAGE_SECONDS,
    )
    scroll_to(driver, shown)
    return shown


def scroll_to(driver, element):
    """Bring an element to the middle of the window."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)


def text_of(driver, css):
    """Return the visible text of the element matching `css`."""
    return driver.find_element(By.CSS_SELECTOR, css).text


def cut_off_labels(driver, container_css):
    """Return the labels and buttons under `container_css` whose text does not fit their box."""
    labels = driver.find_elements(
        By.CSS_SELECTOR, f"{container_css} .widget-label, {container_css} button"
    )
    return [
        label.text
        for label in labels
        if label.text
        and driver.execute_script(
            "return arguments[0].scrollWidth > arguments[0].clientWidth + 1;", label
        )
    ]
