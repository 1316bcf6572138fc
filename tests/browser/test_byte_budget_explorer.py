"""In a real browser, step 4's byte-budget explorer measures typed text against the budget slider.

JupyterLab runs the solution notebook; the test types text into the explorer, moves its slider
with the keyboard and reads what the page shows, saving a screenshot at each stage under
test-artifacts/screenshots/.
"""

import re

import pytest
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as visible
from selenium.webdriver.support.ui import WebDriverWait

from tooling.paths import REPO_ROOT

NOTEBOOK = "04-byte-budget.ipynb"
SCREENSHOTS = REPO_ROOT / "test-artifacts" / "screenshots"
PAGE_SECONDS = 90
UPDATE_SECONDS = 20
ROCKETS = "🚀🚀"  # 2 quotes + 2 x 4 bytes = 10 bytes of JSON


def wait_for(driver, condition, what, seconds=UPDATE_SECONDS):
    """Wait until `condition(driver)` is truthy; fail saying `what` never happened."""
    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.2).until(condition)
    except TimeoutException:
        shoot(driver, "timeout")
        pytest.fail(f"Timed out after {seconds}s waiting for {what}.")


def shoot(driver, stage):
    """Save a screenshot of the page as it is now."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / f"byte-budget-{stage}.png"))


def text_of(driver, css):
    """Return the visible text of the explorer part matching `css`."""
    return driver.find_element(By.CSS_SELECTOR, f".budget-explorer {css}").text


def shown_size(driver):
    """Return the size the explorer shows (the first integer of its size line), or None."""
    match = re.search(r"\d+", text_of(driver, ".budget-size"))
    return int(match.group()) if match else None


def wait_for_reading(driver, size, budget, verdict):
    """Wait until the explorer shows `size` bytes against `budget` and a verdict with `verdict`."""

    def shows_it(_):
        line = text_of(driver, ".budget-size")
        return (
            shown_size(driver) == size
            and f"budget {budget}" in line
            and verdict in text_of(driver, ".budget-verdict")
        )

    wait_for(driver, shows_it, f"{size} bytes against a budget of {budget}, verdict {verdict!r}")


def kernel_is_ready(driver):
    """Return True once the status bar shows the notebook's kernel connected and idle."""
    # The status bar reads "No Kernel | Initializing", then "<kernel> | Connecting", then
    # "<kernel> | Idle"; the toolbar's execution indicator alone can read idle before a kernel
    # is attached, and a Run All issued then is silently dropped.
    bars = driver.find_elements(By.CSS_SELECTOR, ".jp-StatusBar-Widget")
    text = " ".join(bar.text for bar in bars)
    return "| Idle" in text and "No Kernel" not in text


def open_notebook_and_run_all(driver, lab_server):
    """Open the notebook, wait for an idle kernel, and run every cell from the Run menu."""
    driver.get(lab_server.url(f"lab/tree/{NOTEBOOK}"))
    wait_for(
        driver, kernel_is_ready, "the notebook to open with a connected, idle kernel", PAGE_SECONDS
    )
    menu = driver.find_element(By.XPATH, "//li[contains(@class,'lm-MenuBar-item')][.='Run']")
    menu.click()
    item = (By.XPATH, "//li[contains(@class,'lm-Menu-item')][.//*[.='Run All Cells']]")
    wait_for(driver, visible.element_to_be_clickable(item), "Run All Cells in the Run menu").click()
    explorer = wait_for(
        driver,
        visible.visibility_of_element_located((By.CSS_SELECTOR, ".budget-explorer .budget-size")),
        "the byte-budget explorer to render",
        PAGE_SECONDS,
    )
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", explorer)


def type_text(driver, text):
    """Replace the explorer's text as a user would: select all, delete, then type `text`."""
    field = driver.find_element(By.CSS_SELECTOR, ".budget-explorer .budget-text input")
    field.click()
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(Keys.BACKSPACE)
    # chromedriver's send_keys cannot type characters outside the BMP, such as emoji; the
    # DevTools insertText command types them the way an input method does.
    driver.execute_cdp_cmd("Input.insertText", {"text": text})


def press_on_slider(driver, key, times):
    """Focus the budget slider's handle and press an arrow key `times` times."""
    handle = driver.find_element(By.CSS_SELECTOR, ".budget-explorer .budget-slider .noUi-handle")
    handle.click()
    for _ in range(times):
        handle.send_keys(key)


def test_explorer_measures_typed_text_in_utf8_bytes_against_the_slider_budget(browser, lab_server):
    open_notebook_and_run_all(browser, lab_server)
    wait_for_reading(browser, 8, 8, "fits")  # the initial "東京": 2 quotes + 2 x 3 bytes
    shoot(browser, "1-initial")

    type_text(browser, ROCKETS)
    wait_for_reading(browser, 10, 8, "result_too_large")
    assert ROCKETS in text_of(browser, ".budget-json")
    shoot(browser, "2-rockets-over-budget")

    press_on_slider(browser, Keys.ARROW_RIGHT, 2)
    wait_for_reading(browser, 10, 10, "fits")
    shoot(browser, "3-budget-10-fits")

    press_on_slider(browser, Keys.ARROW_LEFT, 1)
    wait_for_reading(browser, 10, 9, "result_too_large")
    shoot(browser, "4-budget-9-one-byte-over")
