"""The course installs like any package: a non-editable install of the handout runs every lesson.

A JupyterHub image is built with `pip install`, not from a checkout: every file the lessons read
must ship with the package. The handout is installed into a fresh virtual environment, its
course package copied into site-packages (not linked to the repository), and each lesson is run
top to bottom from a folder outside the repository, as a student would open it.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tooling.handout import build_handout
from tooling.paths import assignment_name

# Slow: pip installs the handout into a new venv (about 20 s), then runs every lesson in a kernel.
pytestmark = [pytest.mark.kernel, pytest.mark.slow]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """Install the handout non-editably into a fresh venv; return (venv python, lessons folder)."""
    root = tmp_path_factory.mktemp("student")
    handout = root / "handout"
    build_handout(handout)
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    requirements = (handout / "requirements.txt").read_text(encoding="utf-8").splitlines()
    packages = [line for line in requirements if line.strip() and line.strip() != "."]
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, *packages], check=True)
    subprocess.run([*pip, str(handout)], check=True)  # non-editable: copied, not linked
    # The student works in the unpacked handout, with the repository nowhere near.
    shutil.rmtree(handout / "course")
    return python, handout / "lessons" / assignment_name()


def test_the_course_is_copied_into_the_environment_not_linked_to_the_repository(installed):
    python, _lessons = installed
    where = subprocess.run(
        [str(python), "-c", "import course; print(course.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd="/",
    ).stdout.strip()
    assert "site-packages" in where
    assert not where.startswith(str(Path(__file__).resolve().parents[2]))


def test_every_lesson_runs_to_its_end_from_the_installed_course(installed):
    python, lessons = installed
    notebooks = sorted(lessons.glob("*.ipynb"))
    assert notebooks
    for notebook in notebooks:
        done = subprocess.run(
            [
                str(python.parent / "jupyter"),
                "nbconvert",
                "--to",
                "notebook",
                "--execute",
                "--ExecutePreprocessor.timeout=120",
                "--output",
                f"ran-{notebook.name}",
                notebook.name,
            ],
            capture_output=True,
            text=True,
            check=False,
            cwd=lessons,
        )
        assert done.returncode == 0, f"{notebook.name}: {done.stderr[-2000:]}"
        ran = json.loads((lessons / f"ran-{notebook.name}").read_text(encoding="utf-8"))
        errors = [
            output
            for cell in ran["cells"]
            for output in cell.get("outputs", [])
            if output.get("output_type") == "error"
        ]
        assert errors == [], f"{notebook.name}: {errors[:1]}"


def test_the_install_gives_jupyterlab_the_lessons_settings_no_news_pop_up(installed):
    # The issue: JupyterLab's "get notified about official Jupyter news?" covered the widgets.
    python, _lessons = installed
    overrides = python.parents[1] / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    settings = json.loads(overrides.read_text(encoding="utf-8"))
    notification = settings["@jupyterlab/apputils-extension:notification"]
    assert notification == {"fetchNews": "false", "checkForUpdates": False}
    where = subprocess.run(
        [str(python.parent / "jupyter"), "lab", "path"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert f"Application directory:   {python.parents[1] / 'share' / 'jupyter' / 'lab'}" in where
