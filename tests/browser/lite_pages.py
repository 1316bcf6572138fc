"""The browser site (build/lite/) served as a student serves it, in Chromium with no network.

`serve_site` serves the built site with the course's own server (tooling/lite/serve.py, with the
headers that let Interrupt work). `offline_chromium` starts Chromium whose every request off this
machine goes to a proxy that does not exist and whose host names resolve to nothing, and which
writes Chromium's own log of every request it made (its NetLog); `site_requests_off_machine`
reads that log back. `LiteStudent` does what a student does in the site: open a notebook, type an
answer into a cell, run it, save, reload, close a tab, and read what the page shows;
`kernel_workers` counts the kernels running in the browser.
"""

import contextlib
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import pytest
from lab_pages import CHROMEDRIVER, CHROMIUM, CHROMIUM_ARGUMENTS, shoot, wait_for
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from tooling.lite.build import SITE
from tooling.lite.serve import make_server

KERNEL_SECONDS = 120
START_SECONDS = 45  # a kernel starts in 10 to 20 s here; one not idle by then never is
RELOADS = 2
IDLE_SECONDS = 2.0
LAYOUT_SAVED_SECONDS = 2.0
# Chromium's own services that no flag fully silences (its clock, its updater, sign-in, the
# search page); they are the browser's, never the page's (their requests come from no origin).
NO_ORIGIN = "not an origin"
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
QUIETER = (
    "--disable-features=OptimizationGuideModelDownloading,OptimizationHintsFetching,"
    "OptimizationTargetPrediction,OptimizationHints,MediaRouter,AutofillServerCommunication,"
    "Translate,CertificateTransparencyComponentUpdater,DialMediaRouteProvider",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-component-extensions-with-background-pages",
    "--no-pings",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--no-default-browser-check",
    "--password-store=basic",
)


def dead_port():
    """Return a loopback port nothing listens on (bound, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def lite_site():
    """Serve build/lite/ on a free loopback port with the course's server; yield its address."""
    if not (SITE / "index.html").is_file():
        pytest.fail(f"{SITE} holds no site: run `make lite` first (`make test` does).")
    server = make_server(SITE, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class OfflineBrowser:
    """A Chromium with no network, the folder its downloads go to, and where its NetLog is."""

    driver: webdriver.Chrome
    downloads: Path
    netlog: Path
    timings: dict[str, float] = field(default_factory=dict)


def offline_chromium(work: Path) -> OfflineBrowser:
    """Start Chromium that can reach only this machine, logging every request it makes."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        pytest.fail(f"{' and '.join(missing)} not found: run `make browser-deps`.")
    downloads, netlog = work / "downloads", work / "netlog.json"
    downloads.mkdir()
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (*CHROMIUM_ARGUMENTS, *QUIETER):
        options.add_argument(argument)
    options.add_argument(f"--user-data-dir={work / 'profile'}")
    # No network: every request off this machine goes to a proxy that is not there, and no host
    # name but this machine's resolves. The NetLog records what was tried all the same.
    options.add_argument(f"--proxy-server=http://127.0.0.1:{dead_port()}")
    options.add_argument("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")
    options.add_argument(f"--log-net-log={netlog}")
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads)})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.execute_cdp_cmd(
        "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)}
    )
    return OfflineBrowser(driver, downloads, netlog)


def site_requests_off_machine(netlog: Path) -> tuple[list[str], int]:
    """Return (URLs off this machine that a page or worker asked for, requests from pages).

    Read from Chromium's NetLog, written when the browser quit: every request it started, with
    the origin that started it. The browser's own (from no origin) are not the site's.
    """
    log = json.loads(netlog.read_text(encoding="utf-8"))
    kinds = {number: name for name, number in log["constants"]["logEventTypes"].items()}
    off, from_pages = [], 0
    for event in log["events"]:
        if kinds.get(event["type"]) != "URL_REQUEST_START_JOB":
            continue
        params = event.get("params", {})
        url, origin = params.get("url", ""), params.get("initiator")
        if not url or origin in (None, NO_ORIGIN):
            continue
        from_pages += 1
        if urlparse(url).hostname not in {host.strip("[]") for host in LOOPBACK}:
            off.append(url)
    return off, from_pages


class LiteStudent:
    """A student at the browser site: opens notebooks, types, runs, saves, reloads."""

    def __init__(self, browser: OfflineBrowser, site: str) -> None:
        self.browser = browser
        self.driver = browser.driver
        self.site = site
        self.restarts: list[str] = []

    def open(self, notebook: str) -> float:
        """Open `notebook` as a fresh page, alone, and wait for its kernel; return the seconds.

        A kernel that never starts (JupyterLite's Pyodide kernel does that now and then here,
        its worker failing while it loads micropip) gets what the handout README tells a
        student to do: reload the page. Each reload is counted in `restarts`.
        """
        if self.driver.current_url.startswith(self.site):
            self.close_all_tabs()  # or the site reopens every notebook opened before
        started = time.monotonic()
        self.driver.get(f"{self.site}/lab/index.html?path={notebook}")
        for _attempt in range(RELOADS):
            try:
                WebDriverWait(self.driver, START_SECONDS, poll_frequency=0.2).until(kernel_idle)
                tabs = self.driver.find_elements(By.CSS_SELECTOR, ".jp-Notebook")
                assert len(tabs) == 1, f"{len(tabs)} notebooks open with {notebook}"
                return time.monotonic() - started
            except TimeoutException:
                self.restarts.append(notebook)
                self.driver.refresh()
        wait_for(
            self.driver, kernel_idle, f"{notebook} to open with an idle kernel", KERNEL_SECONDS
        )
        return time.monotonic() - started

    def menu(self, menu: str, item: str) -> None:
        """Choose `item` in the menu bar's `menu`, as a student clicks it."""
        self.driver.find_element(
            By.XPATH, f"//li[contains(@class,'lm-MenuBar-item')][.='{menu}']"
        ).click()
        entry = (By.XPATH, f"//li[contains(@class,'lm-Menu-item')][.//*[.='{item}']]")
        wait_for(self.driver, lambda d: d.find_elements(*entry), f"{item} in {menu}")
        self.driver.find_element(*entry).click()

    def open_beside(self, notebook: str) -> None:
        """Open `notebook` from the file browser in the same page; wait for its kernel."""
        item = wait_for(
            self.driver,
            lambda d: [
                e
                for e in d.find_elements(By.CSS_SELECTOR, ".jp-DirListing-item")
                if notebook in e.text
            ],
            f"{notebook} in the file browser",
        )[0]
        ActionChains(self.driver).double_click(item).perform()
        wait_for(
            self.driver,
            lambda d: notebook in current_tab(d) and kernel_idle(d),
            f"{notebook} to open with an idle kernel",
            KERNEL_SECONDS,
        )

    def close_tab(self, notebook: str) -> None:
        """Close `notebook`'s tab with its × and wait until it is gone.

        If the page asks about unsaved changes, the answer is Discard, as students learned to
        answer when every notebook opened marked unsaved.
        """
        [tab] = [t for t in self.driver.find_elements(By.CSS_SELECTOR, TAB) if notebook in t.text]
        tab.find_element(By.CSS_SELECTOR, ".lm-TabBar-tabCloseIcon").click()
        with contextlib.suppress(TimeoutException):
            WebDriverWait(self.driver, 1).until(lambda d: d.find_elements(*DISCARD))[0].click()
        wait_for(
            self.driver,
            lambda d: not [t for t in d.find_elements(By.CSS_SELECTOR, TAB) if notebook in t.text],
            f"{notebook}'s tab to close",
        )

    def unsaved_tabs(self) -> list[str]:
        """Return the names of the tabs marked as holding unsaved changes."""
        marked = self.driver.find_elements(By.CSS_SELECTOR, f"{TAB}.jp-mod-dirty")
        return [tab.text for tab in marked]

    def close_all_tabs(self) -> None:
        """Close every open tab (File → Close All Tabs), leaving nothing to reopen."""
        self.menu("File", "Close All Tabs")
        # A notebook whose outputs changed since its save (hand-in.ipynb's) asks first.
        with contextlib.suppress(TimeoutException):
            WebDriverWait(self.driver, 1).until(lambda d: d.find_elements(*DISCARD))[0].click()
        time.sleep(LAYOUT_SAVED_SECONDS)  # JupyterLab keeps the layout a moment after a change
        wait_for(
            self.driver,
            lambda d: not d.find_elements(By.CSS_SELECTOR, ".jp-Notebook"),
            "every notebook tab to close",
        )

    def editor(self, marker: str):
        """Return the editor of the code cell whose source holds `marker`."""
        found = [
            e
            for e in self.driver.find_elements(By.CSS_SELECTOR, ".jp-CodeCell .cm-content")
            if marker in e.text
        ]
        assert found, f"no code cell holds {marker!r}"
        return found[0]

    def cell_of(self, marker: str):
        """Return the code cell whose source holds `marker`."""
        return self.editor(marker).find_element(
            By.XPATH, "ancestor::div[contains(@class,'jp-CodeCell')]"
        )

    def type_into(self, marker: str, source: str) -> None:
        """Replace the source of the cell holding `marker` with `source`, typed in the editor."""
        editor = self.editor(marker)
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", editor)
        editor.click()
        chord = ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL)
        chord.send_keys(Keys.DELETE).perform()
        # Typed as an input method types it: no automatic indent or bracket is added.
        self.driver.execute_cdp_cmd("Input.insertText", {"text": source})
        first = source.strip().splitlines()[0]
        wait_for(self.driver, lambda _: first in editor.text, "the typed source to show")

    def run_cell(self, marker: str, shows: str = "") -> float:
        """Run the cell holding `marker` (Shift+Enter); wait until it ran and shows `shows`.

        Return the seconds from the key press to the new output.
        """
        cell = self.cell_of(marker)
        prompt = cell.find_element(By.CSS_SELECTOR, ".jp-InputPrompt")
        before = prompt.text
        self.editor(marker).click()
        started = time.monotonic()
        keys = ActionChains(self.driver).key_down(Keys.SHIFT).send_keys(Keys.ENTER)
        keys.key_up(Keys.SHIFT).perform()

        def ran(driver: webdriver.Chrome) -> bool:
            # Its prompt changes (to [*], at least) and its new output shows.
            return prompt.text != before and kernel_idle(driver) and shows in output_text(cell)

        wait_for(self.driver, ran, f"the cell to run and show {shows!r}", KERNEL_SECONDS)
        return time.monotonic() - started

    def run_all(self) -> None:
        """Run every cell (Run → Run All Cells) and wait until the kernel is done with them.

        Done is idle for IDLE_SECONDS on end: the site's kernel sometimes leaves a cell's prompt
        at [*] after its output and its reply came (a known fault of its worker's messaging
        with cross-origin isolation), so prompts cannot say it.
        """
        self.menu("Run", "Run All Cells")
        with contextlib.suppress(TimeoutException):  # a short run may be over before a look
            WebDriverWait(self.driver, 5, poll_frequency=0.05).until(lambda d: not kernel_idle(d))
        idle_since: list[float] = []

        def settled(driver: webdriver.Chrome) -> bool:
            if not kernel_idle(driver):
                idle_since.clear()
                return False
            idle_since[:] = idle_since or [time.monotonic()]
            return time.monotonic() - idle_since[0] >= IDLE_SECONDS

        wait_for(self.driver, settled, "every cell to run", KERNEL_SECONDS)

    def save(self) -> None:
        """Save the notebook with Ctrl+S from outside any text box, and wait until it is saved."""
        # Out of any editor or explorer box first, as the lesson says (Escape, then a click on
        # the notebook's first text).
        ActionChains(self.driver).send_keys(Keys.ESCAPE).perform()
        texts = self.driver.find_elements(
            By.CSS_SELECTOR, ".jp-MarkdownCell .jp-RenderedHTMLCommon"
        )
        text = next(t for t in texts if t.is_displayed() and t.size["height"] > 0)
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", text)
        ActionChains(self.driver).move_to_element(text).click().perform()
        ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("s").key_up(
            Keys.CONTROL
        ).perform()
        wait_for(
            self.driver,
            lambda d: not d.find_elements(By.CSS_SELECTOR, ".lm-TabBar-tab.jp-mod-dirty"),
            "the notebook to be saved",
        )

    def reload(self, marker: str) -> None:
        """Reload the page and wait until the notebook shows `marker` again, as it was saved."""
        self.driver.refresh()
        wait_for(
            self.driver,
            lambda _: marker in self.sources(),
            "the saved notebook to come back after the reload",
            KERNEL_SECONDS,
        )

    def sources(self) -> str:
        """Return the text of every code cell's editor, as the page shows it."""
        return self.driver.execute_script(
            "return Array.from(document.querySelectorAll('.jp-CodeCell .cm-content'))"
            ".map(e => e.innerText).join('\\n');"
        )

    def outputs(self, marker: str) -> str:
        """Return what the cell holding `marker` shows under it."""
        return output_text(self.cell_of(marker))

    def stderr(self, marker: str) -> str:
        """Return what the cell holding `marker` wrote to stderr, as the page shows it."""
        areas = self.cell_of(marker).find_elements(By.CSS_SELECTOR, STDERR)
        return "\n".join(area.text for area in areas)

    def red_lines(self, marker: str) -> list[tuple[str, str]]:
        """Return (text, colour) of each red-marked span in the cell's output (ANSI red)."""
        spans = self.cell_of(marker).find_elements(By.CSS_SELECTOR, ".ansi-red-fg")
        return [(span.text, span.value_of_css_property("color")) for span in spans]

    def part(self, css: str):
        """Return the one visible element matching `css`, scrolled into view."""
        element = wait_for(
            self.driver,
            lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, css) if e.is_displayed()],
            f"{css} to show",
        )[0]
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
        return element

    def shot(self, name: str) -> None:
        """Save a screenshot under test-artifacts/screenshots/."""
        shoot(self.driver, name)


STDERR = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
TAB = ".lm-TabBar-tab"
DISCARD = (By.XPATH, "//dialog//button[.//*[.='Discard'] or .='Discard']")
# The script of the web worker each Pyodide kernel runs in: the kernel and all its memory.
KERNEL_WORKER = "coincident.worker"


def current_tab(driver) -> str:
    """Return the name on the current tab of the main area."""
    tabs = driver.find_elements(By.CSS_SELECTOR, f"{TAB}.jp-mod-current")
    return " ".join(tab.text for tab in tabs)


def kernel_workers(driver) -> int:
    """Return how many Pyodide kernels run in the browser, counted as its web workers."""
    targets = driver.execute_cdp_cmd("Target.getTargets", {})["targetInfos"]
    return sum(t["type"] == "worker" and KERNEL_WORKER in t["url"] for t in targets)


def kernel_idle(driver) -> bool:
    """Return True once the status bar shows the Pyodide kernel idle."""
    bars = " ".join(b.text for b in driver.find_elements(By.CSS_SELECTOR, ".jp-StatusBar-Widget"))
    return "Pyodide) | Idle" in bars


def output_text(cell) -> str:
    """Return the text of a cell's outputs."""
    return "\n".join(o.text for o in cell.find_elements(By.CSS_SELECTOR, ".jp-OutputArea-output"))
