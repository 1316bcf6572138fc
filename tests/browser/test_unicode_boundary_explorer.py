"""In a real browser, step 4's byte-budget explorer measures typed text against the budget.

JupyterLab runs the solution notebook; the test types text into the explorer, sets its budget
with the keyboard and reads what the page shows, saving a screenshot at each stage under
test-artifacts/screenshots/.
"""

import re

import pytest
from lab_pages import cut_off_labels, open_and_run_all, shoot, text_of, wait_for
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

pytestmark = [pytest.mark.kernel, pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = "04-byte-budget.ipynb"
EXPLORER = ".budget-explorer"
ROCKETS = "🚀🚀"  # 2 quotes + 2 x 4 bytes = 10 bytes of JSON


def shown_size(driver):
    """Return the size the explorer shows (the first integer of its size line), or None."""
    match = re.search(r"\d+", text_of(driver, f"{EXPLORER} .budget-size"))
    return int(match.group()) if match else None


def wait_for_reading(driver, size, budget, verdict):
    """Wait until the explorer shows `size` bytes against `budget` and a verdict with `verdict`."""

    def shows_it(_):
        line = text_of(driver, f"{EXPLORER} .budget-size")
        return (
            shown_size(driver) == size
            and f"budget {budget}" in line
            and verdict in text_of(driver, f"{EXPLORER} .budget-verdict")
        )

    wait_for(driver, shows_it, f"{size} bytes against a budget of {budget}, verdict {verdict!r}")


def type_text(driver, text):
    """Replace the explorer's text as a user would: select all, delete, then type `text`."""
    field = driver.find_element(By.CSS_SELECTOR, f"{EXPLORER} .budget-text input")
    field.click()
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(Keys.BACKSPACE)
    # chromedriver's send_keys cannot type characters outside the BMP, such as emoji; the
    # DevTools insertText command types them the way an input method does.
    driver.execute_cdp_cmd("Input.insertText", {"text": text})


def press_on_budget(driver, key, times):
    """Focus the budget's number box and press an arrow key `times` times."""
    box = driver.find_element(By.CSS_SELECTOR, f"{EXPLORER} .budget-bytes input")
    box.click()
    for _ in range(times):
        box.send_keys(key)


def test_explorer_measures_typed_text_in_utf8_bytes_against_the_budget(browser, lab_server):
    open_and_run_all(browser, lab_server, NOTEBOOK, f"{EXPLORER} .budget-size")
    wait_for_reading(browser, 8, 8, "fits")  # the initial "東京": 2 quotes + 2 x 3 bytes
    assert text_of(browser, f"{EXPLORER} .budget-check").startswith("✓ The check of this step")
    assert cut_off_labels(browser, EXPLORER) == []
    shoot(browser, "byte-budget-1-initial")

    type_text(browser, ROCKETS)
    wait_for_reading(browser, 10, 8, "result_too_large")
    assert ROCKETS in text_of(browser, f"{EXPLORER} .budget-json")
    shoot(browser, "byte-budget-2-rockets-over-budget")

    press_on_budget(browser, Keys.ARROW_UP, 2)
    wait_for_reading(browser, 10, 10, "fits")
    shoot(browser, "byte-budget-3-budget-10-fits")

    press_on_budget(browser, Keys.ARROW_DOWN, 1)
    wait_for_reading(browser, 10, 9, "result_too_large")
    shoot(browser, "byte-budget-4-budget-9-one-byte-over")
