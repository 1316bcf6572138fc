"""On the browser course's notebook pages, the course's own output passes axe-core.

The site `make lite` built is served by its own serve.py, in Chromium with no network. A student
opens the notebooks whose explorers have text boxes, sliders, buttons and lists (step 4's
byte-budget explorer, step 5's ownership explorer, step 7's playground) and runs every cell: the
setup's ✓/✗ lines, the check's output and the explorer show. axe-core's own script is put in the
page and `axe.run` checks the whole page with every rule it runs by default; only violations
whose nodes lie inside a cell's output (`.jp-OutputArea-output`, what the course's code printed
or displayed) count, and there must be none. JupyterLab's own chrome (menus, toolbars, the file
browser) is not the course's, and its violations are JupyterLab's.

axe-core comes from the same pinned npm package as test_reports_accessibility.py uses.
"""

import pytest
from lab_pages import wait_for
from lite_pages import (
    LiteStudent,
    lite_site,  # noqa: F401 - a fixture
    offline_chromium,
)
from selenium.webdriver.common.by import By

pytestmark = [pytest.mark.browser, pytest.mark.bwrap, pytest.mark.slow]

AXE_SECONDS = 90
# Each notebook, and a part of its explorer that shows once the explorer is drawn.
# The explorers that take typed input (a number box, code cells, a playground). All seven steps'
# notebooks passed once (190 s in CI against 79 s for these three); the others' widgets are
# ipywidgets' labelled buttons and selects.
NOTEBOOKS = (
    ("04-byte-budget.ipynb", ".budget-explorer .budget-size"),
    ("05-ownership.ipynb", ".ownership-check"),
    ("07-invoke-tool.ipynb", ".playground-run"),
)
OUTPUT = ".jp-OutputArea-output"
# Runs axe on the whole document; calls back with each violation's id, impact and help, and the
# nodes of it that lie inside a cell's output (their first target and their HTML's start).
RUN_AXE = """
const [output, done] = [arguments[0], arguments[arguments.length - 1]];
axe.run(document, {resultTypes: ['violations'], elementRef: true}).then(
    (results) => done(results.violations.map((v) => ({
        id: v.id, impact: v.impact, help: v.help, all: v.nodes.length,
        ours: v.nodes.filter((node) => node.element && node.element.closest(output))
            .map((node) => String(node.target[0]) + ' ' + node.html.slice(0, 160)),
    }))),
    (error) => done({error: String(error)}),
);
"""


@pytest.fixture(scope="module")
def student(lite_site, tmp_path_factory):  # noqa: F811 - the fixture imported above
    """A student at the offline site, in a Chromium of their own."""
    browser = offline_chromium(tmp_path_factory.mktemp("lite-axe"))
    try:
        yield LiteStudent(browser, lite_site)
    finally:
        browser.driver.quit()


def violations_in_outputs(student, axe_source):
    """Run axe-core on the page; return its violations that have nodes in a cell's output."""
    driver = student.driver
    driver.execute_script(axe_source)
    driver.set_script_timeout(AXE_SECONDS)
    found = driver.execute_async_script(RUN_AXE, OUTPUT)
    assert not isinstance(found, dict), f"axe-core did not run: {found}"
    return [v for v in found if v["ours"]]


@pytest.mark.parametrize(("notebook", "explorer"), NOTEBOOKS)
def test_the_courses_output_on_a_notebook_page_passes_axe_core(
    student, axe_source, notebook, explorer
):
    student.open(notebook)
    student.run_all()
    student.part(explorer)
    wait_for(
        student.driver,
        lambda d: len(d.find_elements(By.CSS_SELECTOR, OUTPUT)) >= 3,
        "the setup's, the check's and the explorer's output to show",
    )
    student.shot(f"lite-axe-{notebook.removesuffix('.ipynb')}")
    failures = [
        f"{v['id']} ({v['impact']}, {len(v['ours'])} of {v['all']} node(s)) {v['help']}: "
        + "; ".join(v["ours"][:3])
        for v in violations_in_outputs(student, axe_source)
    ]
    assert not failures, f"axe-core found in {notebook}'s output:\n" + "\n".join(failures)
