"""The class report and the feedback pages pass axe-core in Chromium, with no violation at all.

A small class is graded with --similarity into a temporary folder, as in
test_class_report_in_chromium.py: sample students (one with full marks, others who lose points),
one whose code never finishes loading, a copied pair (so the report shows its section on similar
code) and a roster naming one student who sent nothing. report.html and two feedback pages (a
student who answered some tests wrongly, and the one whose run timed out) are opened from
file://, in a desktop's window and a phone's, every <details> on them opened; axe-core's own
script is put in each, and `axe.run` checks the page with every rule it runs by default,
whatever their impact.

axe-core is pinned in tooling/lite/package-lock.json, beside the site's Pyodide runtime, and
installed by the same `npm ci` (tooling.lite.build.npm_packages, which `make lite` runs before
`make test`'s tests): nothing is fetched while the test runs, and the site never carries it.
"""

import shutil

import pytest
from grader_cli import read_grades, run_grader

from grader.paths import FIXTURES, SAMPLE_CLASS, SUBMISSIONS

pytestmark = [pytest.mark.browser, pytest.mark.bwrap, pytest.mark.slow]

SAMPLE = SAMPLE_CLASS / "submitted"
ENDLESS = SUBMISSIONS / "adversarial" / "timeout" / "infinite-loop-at-import.py"
COPIED_PAIR = FIXTURES / "classes" / "copied-pair"
SAMPLE_STUDENTS = ("ada", "alan", "grace", "linus")
COPIERS = ("ana", "ben")
ABSENT = "bob"
AXE_SECONDS = 60
# A desktop's window and a phone's: at a phone's width the tables and the code scroll sideways.
WINDOWS = ((1400, 1000), (375, 800))
# axe-core checks only what is shown: every <details> (who missed a test, a similar pair's code)
# is opened first, as an instructor would.
OPEN_EVERY_DETAILS = "document.querySelectorAll('details').forEach((d) => { d.open = true; });"
# Runs axe on the whole document; calls back with each violation's id, impact, help and the
# first target of each of its nodes (a CSS selector), or with the error that stopped it.
RUN_AXE = """
const done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ['violations']}).then(
    (results) => done(results.violations.map((v) => ({
        id: v.id, impact: v.impact, help: v.help,
        targets: v.nodes.map((node) => String(node.target[0])),
    }))),
    (error) => done({error: String(error)}),
);
"""


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    """Grade the class with --similarity; return the folder the grader wrote."""
    folder = tmp_path_factory.mktemp("class")
    for student in SAMPLE_STUDENTS:
        shutil.copytree(SAMPLE / student, folder / student)
    for student in COPIERS:
        shutil.copy(COPIED_PAIR / f"{student}.py", folder / f"{student}.py")
    shutil.copy(ENDLESS, folder / "endless.py")
    graded = (*SAMPLE_STUDENTS, *COPIERS, "endless")
    roster = folder.parent / "students.csv"
    roster.write_text("\n".join(["id", *graded, ABSENT]) + "\n", encoding="utf-8")
    out = tmp_path_factory.mktemp("grades")
    completed = run_grader(
        "grade",
        *(folder, "--out", out, "--jobs", "2", "--timeout", "8", "--roster", roster),
        "--similarity",
    )
    assert completed.returncode == 0, completed.stderr
    return out


def pages(out):
    """Return the pages to check: the report, a feedback page with failures, the timed-out one."""
    rows = read_grades(out)
    assert rows["endless"]["status"] == "timeout", rows["endless"]
    failing = next(s for s in SAMPLE_STUDENTS if rows[s]["score"] != rows[s]["max_score"])
    return [out / "report.html", out / failing / "feedback.html", out / "endless" / "feedback.html"]


def violations_on(browser, page, axe_source):
    """Open `page` from file://, run axe-core on it, return its violations."""
    browser.get(page.as_uri())
    browser.execute_script(OPEN_EVERY_DETAILS)
    browser.execute_script(axe_source)
    browser.set_script_timeout(AXE_SECONDS)
    found = browser.execute_async_script(RUN_AXE)
    assert not isinstance(found, dict), f"axe-core did not run on {page}: {found}"
    return found


def test_the_report_and_the_feedback_pages_pass_axe_core(browser, graded_class, axe_source):
    report = (graded_class / "report.html").read_text(encoding="utf-8")
    assert "id='similar-code'" in report and "table class='similar-pairs'" in report
    failures = []
    for width, height in WINDOWS:
        browser.set_window_size(width, height)
        for page in pages(graded_class):
            for violation in violations_on(browser, page, axe_source):
                failures.append(
                    f"{page.relative_to(graded_class)} at {width} px: {violation['id']} "
                    f"({violation['impact']}, {len(violation['targets'])} node(s)) "
                    f"{violation['help']}; first: {violation['targets'][0]}"
                )
    browser.set_window_size(*WINDOWS[0])
    assert not failures, "axe-core found:\n" + "\n".join(failures)
