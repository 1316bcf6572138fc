"""A JupyterLab server on a temporary copy of the solutions, and headless Chromium to drive it.

Both are started per test module and always stopped by fixture finalizers, even when a test
fails half way.
"""

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from lab_pages import CHROMEDRIVER, CHROMIUM, CHROMIUM_ARGUMENTS
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from grader.paths import SOLUTIONS
from tooling.lite.build import npm_packages
from tooling.paths import assignment_name

SERVER_START_SECONDS = 90
# JupyterLab settings: render every cell (no virtual windowing, so the widget's cell is in the
# page) and ask nothing about news or updates, whose pop-up could cover the page.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}


@dataclass(frozen=True)
class LabServer:
    """A running JupyterLab: where it listens, the token that opens it, the folder it serves."""

    base_url: str
    token: str
    root: Path

    def url(self, path):
        """Return the address of `path` on the server, with the token."""
        return f"{self.base_url}/{path}?token={self.token}"


def free_port():
    """Return a TCP port that is free on the loopback interface right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_lab_settings(settings_dir):
    """Write the JupyterLab user settings the test relies on."""
    for name, values in LAB_SETTINGS.items():
        path = settings_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values), encoding="utf-8")


def wait_until_serving(server, process, log_path):
    """Wait until the server answers its status API; fail with its log if it never does."""
    deadline = time.monotonic() + SERVER_START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            with urllib.request.urlopen(server.url("api/status"), timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            time.sleep(0.5)
    log = log_path.read_text(encoding="utf-8", errors="replace")[-3000:]
    pytest.fail(f"JupyterLab did not start within {SERVER_START_SECONDS}s. Its log ends:\n{log}")


def stop(process):
    """Stop a process we started, with its children (it leads its own process group)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=15)


@contextlib.contextmanager
def running_lab(work, *options):
    """Run JupyterLab on a copy of the solution notebooks under `work`; stop it afterwards.

    `options` are more of JupyterLab's command-line options (where its settings are read).
    """
    root = work / assignment_name()
    shutil.copytree(SOLUTIONS / assignment_name(), root)
    server = LabServer(f"http://127.0.0.1:{free_port()}", secrets.token_hex(16), root)
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(work / "config"),
        "JUPYTER_RUNTIME_DIR": str(work / "runtime"),
    }
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.allow_root=True",  # CI runs as root in a container
        "--ip=127.0.0.1",
        f"--port={server.base_url.rsplit(':', 1)[1]}",
        f"--IdentityProvider.token={server.token}",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.user_settings_dir={work / 'settings'}",
        f"--LabApp.workspaces_dir={work / 'workspaces'}",
        *options,
    ]
    log_path = work / "jupyterlab.log"
    with log_path.open("w", encoding="utf-8") as log:
        process = subprocess.Popen(
            command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        wait_until_serving(server, process, log_path)
        yield server
    finally:
        stop(process)


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory):
    """Start JupyterLab on a temporary copy of the solution notebooks; stop it afterwards."""
    work = tmp_path_factory.mktemp("lab")
    write_lab_settings(work / "settings")
    with running_lab(work) as server:
        yield server


@pytest.fixture
def start_lab(tmp_path):
    """Return a function starting JupyterLab with no user settings (see running_lab)."""

    def start(name, *options):
        work = tmp_path / name
        work.mkdir()
        return running_lab(work, *options)

    return start


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Start headless Chromium through chromedriver; quit it afterwards."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        pytest.fail(
            f"{' and '.join(missing)} not found: the browser test needs Debian's chromium and "
            "chromium-driver. Run `make browser-deps` (or apt-get install chromium "
            "chromium-driver) and try again."
        )
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in CHROMIUM_ARGUMENTS:
        options.add_argument(argument)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="session")
def axe_source():
    """Return axe.min.js, as the pinned npm package has it (installed by `npm ci` if need be)."""
    if shutil.which("npm") is None:
        pytest.fail("npm not found: run `make lite-deps` (or apt-get install npm) and try again.")
    return (npm_packages() / "axe-core" / "axe.min.js").read_text(encoding="utf-8")
