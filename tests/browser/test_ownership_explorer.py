"""In a real browser, step 5's ownership explorer shows who owns the roster, in plain words.

JupyterLab runs the solution notebook. With "the handler's own value" chosen, adding a member
changes the fixture's record; after a reset, with "a fresh value" chosen, it does not, and the
check's verdict on the student's fresh_value is shown. The choice is spelled out by the radio
buttons, and every label fits its box. Screenshots are saved under test-artifacts/screenshots/.
"""

import pytest
from lab_pages import cut_off_labels, open_and_run_all, scroll_to, shoot, text_of, wait_for
from selenium.webdriver.common.by import By

pytestmark = [pytest.mark.kernel, pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = "05-ownership.ipynb"
EXPLORER = ".ownership-explorer"


def click(driver, css):
    element = driver.find_element(By.CSS_SELECTOR, f"{EXPLORER} {css}")
    scroll_to(driver, element)
    element.click()


def choose(driver, starts_with):
    """Click the radio button whose label starts with `starts_with`."""
    labels = driver.find_elements(By.CSS_SELECTOR, f"{EXPLORER} .widget-radio-box label")
    [label] = [label for label in labels if label.text.startswith(starts_with)]
    label.click()


def chosen(driver):
    """Return the label of the radio button that is checked."""
    labels = driver.find_elements(By.CSS_SELECTOR, f"{EXPLORER} .widget-radio-box label")
    return [
        label.text for label in labels if label.find_element(By.CSS_SELECTOR, "input").is_selected()
    ]


def wait_for_status(driver, words):
    wait_for(
        driver,
        lambda _: words in text_of(driver, f"{EXPLORER} .ownership-status"),
        f"the status to say {words!r}",
    )


def test_explorer_shows_a_shared_value_editing_the_fixture_and_a_fresh_one_not(browser, lab_server):
    open_and_run_all(browser, lab_server, NOTEBOOK, f"{EXPLORER} .ownership-fixture")
    assert chosen(browser) == ["the handler's own value, as team_roster returned it"]
    assert cut_off_labels(browser, EXPLORER) == []
    assert text_of(browser, f"{EXPLORER} .ownership-check").startswith(
        "✓ The check of this step passes on your fresh_value"
    )
    shoot(browser, "ownership-1-initial")

    click(browser, ".ownership-add")
    wait_for_status(browser, "The fixture changed.")
    assert "u-004" in text_of(browser, f"{EXPLORER} .ownership-fixture")
    shoot(browser, "ownership-2-own-value-edits-the-fixture")

    click(browser, ".ownership-reset")
    wait_for_status(browser, "The fixture is as it started.")
    choose(browser, "a fresh value")
    wait_for(
        browser,
        lambda _: chosen(browser) == ["a fresh value: the JSON text decoded by your fresh_value"],
        "the fresh value to be the one chosen",
    )
    click(browser, ".ownership-add")
    wait_for_status(browser, "✓ The fixture is unchanged")
    assert "u-004" in text_of(browser, f"{EXPLORER} .ownership-value")
    assert "u-004" not in text_of(browser, f"{EXPLORER} .ownership-fixture")
    shoot(browser, "ownership-3-fresh-value-leaves-the-fixture")
