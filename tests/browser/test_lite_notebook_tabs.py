"""In the browser site, an untouched notebook opens unchanged, and closing its tab ends its kernel.

The issue, from students who did the course in headless Chromium: every notebook opened marked
unsaved (the kernel rewrote its metadata), so they learned to click Discard; and a closed tab left
its kernel running, 8 to 9 of them by the end, the browser's memory up from 1.25 GB to 1.93 GB.
The site `make lite` built (build/lite/) is served by its own serve.py to an offline Chromium.
Kernels are counted as Chromium counts them: each Pyodide kernel is a web worker of its own.
"""

import contextlib

import pytest
from lab_pages import shoot
from lite_pages import (
    LiteStudent,
    kernel_idle,
    kernel_workers,
    lite_site,  # noqa: F401 - a fixture
    offline_chromium,
)
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.support.ui import WebDriverWait

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FIRST, SECOND = "01-the-envelope.ipynb", "03-json-vocabulary.ipynb"
# The old site marked a notebook unsaved as its kernel said Idle; a few seconds more show it.
MARKED_WITHIN_SECONDS = 5
SHUT_DOWN_WITHIN_SECONDS = 10


@pytest.fixture
def student(lite_site, tmp_path):  # noqa: F811 - the fixture imported above
    """A student at the offline site, in a new Chromium of their own.

    New for each test: a page left by navigating away can keep its kernel's worker a while
    (seen here), which would count as a kernel of the next page.
    """
    browser = offline_chromium(tmp_path)
    try:
        yield LiteStudent(browser, lite_site)
    finally:
        browser.driver.quit()


def marked_unsaved_within(student: LiteStudent, seconds: float) -> list[str]:
    """Return the tabs marked unsaved as soon as one is, else (none) after `seconds`."""
    with contextlib.suppress(TimeoutException):
        WebDriverWait(student.driver, seconds, poll_frequency=0.2).until(
            lambda _: student.unsaved_tabs()
        )
    return student.unsaved_tabs()


def kernels_after(student: LiteStudent, expected: int, seconds: float) -> int:
    """Return the number of running kernels as soon as it is `expected`, else after `seconds`."""
    with contextlib.suppress(TimeoutException):
        WebDriverWait(student.driver, seconds, poll_frequency=0.2).until(
            lambda d: kernel_workers(d) == expected
        )
    return kernel_workers(student.driver)


def test_an_untouched_notebook_opens_unchanged(student):
    student.open(SECOND)
    unsaved = marked_unsaved_within(student, MARKED_WITHIN_SECONDS)
    shoot(student.driver, "lite-untouched-notebook")
    assert unsaved == [], "a notebook nobody changed is marked as holding unsaved changes"


def test_closing_a_notebooks_tab_shuts_its_kernel_down(student):
    student.open(FIRST)
    student.open_beside(SECOND)
    assert kernel_workers(student.driver) == 2
    student.close_tab(FIRST)
    assert kernels_after(student, 1, SHUT_DOWN_WITHIN_SECONDS) == 1, "its kernel still runs"
    assert kernel_idle(student.driver), f"{SECOND} lost its kernel"
