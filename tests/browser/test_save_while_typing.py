"""In a real browser, Ctrl+S typed in an explorer's text box does not save, and the student is told.

JupyterLab runs step 4's solution notebook. The student changes `budget_error`, runs everything
(its check passes, and says the saved file lacks this version), then types in the byte-budget
explorer and presses Ctrl+S there: the widget keeps the key, so nothing is saved, as the lesson
warns. The next notebooks' setup then says that step 4's check passed on unsaved work. Once
saved from outside the text box, the setup ticks step 4.
"""

import time

import pytest
from lab_pages import open_and_run_all, run_all, scroll_to, shoot, text_of, wait_for
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from course.carry.setup_cell import load_earlier_steps

pytestmark = [pytest.mark.kernel, pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = "04-byte-budget.ipynb"
EXPLORER = ".budget-explorer"
CHANGED = "Rewritten by the student."
NOT_SAVED_SECONDS = 5  # long enough for a save to reach the disk, far below autosave's 120 s


def saved_text(lab_server):
    return (lab_server.root / NOTEBOOK).read_text(encoding="utf-8")


def step_4_line(lab_server):
    """The line the setup of step 7 prints about step 4, from the files in the lab's folder."""
    lines = []
    load_earlier_steps({}, "07-invoke-tool.ipynb", folder=lab_server.root, out=lines.append)
    [line] = [line for line in lines if "Step 4 (04-byte-budget.ipynb)" in line]
    return line


def exercise_editor(driver):
    """The editor of the cell that defines budget_error."""
    editors = driver.find_elements(By.CSS_SELECTOR, ".jp-CodeCell .cm-content")
    [editor] = [e for e in editors if "def budget_error(" in e.text]
    return editor


def rewrite_docstring(driver):
    """Add words to the first line of budget_error's docstring, typed as a student types."""
    editor = exercise_editor(driver)
    scroll_to(driver, editor)
    editor.click()
    keys = ActionChains(driver).key_down(Keys.CONTROL).send_keys(Keys.HOME).key_up(Keys.CONTROL)
    keys.send_keys(Keys.DOWN, Keys.END, f" {CHANGED}").perform()


def press_save(driver, target):
    target.click()
    ActionChains(driver).key_down(Keys.CONTROL).send_keys("s").key_up(Keys.CONTROL).perform()


def test_ctrl_s_in_a_widget_text_box_does_not_save_and_the_setup_says_so(browser, lab_server):
    open_and_run_all(browser, lab_server, NOTEBOOK, f"{EXPLORER} .budget-size")
    rewrite_docstring(browser)
    run_all(browser)
    check = wait_for(
        browser,
        lambda d: [
            o
            for o in d.find_elements(By.CSS_SELECTOR, ".jp-OutputArea-output")
            if "does not hold this version of `budget_error`" in o.text
        ],
        "the check to say the saved notebook lacks the new version",
    )[0]
    scroll_to(browser, check)
    assert "All 6 checks of `budget_error` passed." in check.text
    shoot(browser, "save-1-check-passed-unsaved")

    field = browser.find_element(By.CSS_SELECTOR, f"{EXPLORER} .budget-text input")
    scroll_to(browser, field)
    press_save(browser, field)
    field.send_keys("Tokyo")
    time.sleep(NOT_SAVED_SECONDS)
    assert CHANGED not in saved_text(lab_server), "Ctrl+S in the text box saved after all"
    line = step_4_line(lab_server)
    assert line.startswith("⚠ Step 4 (04-byte-budget.ipynb):")
    assert "The check of `budget_error` passed at" in line
    assert "if it shows unsaved changes, save it" in line
    shoot(browser, "save-2-ctrl-s-in-the-text-box")

    markdown = browser.find_element(By.CSS_SELECTOR, ".jp-MarkdownCell")
    press_save(browser, markdown)
    wait_for(browser, lambda _: CHANGED in saved_text(lab_server), "the notebook to be saved")
    assert step_4_line(lab_server) == (
        "✓ Step 4 (04-byte-budget.ipynb): `budget_error` is finished and passes its check."
    )
    assert text_of(browser, f"{EXPLORER} .budget-check").startswith("✓")
