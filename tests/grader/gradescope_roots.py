"""Builders shared by the Gradescope tests: a bundle, an /autograder-like root, its results.json.

`autograder_root` lays out a folder as Gradescope lays out /autograder once setup.sh has run: the
unzipped bundle in source/, the student's files in submission/, and in place of what setup.sh
installs, a virtual environment whose only packages are this project's (for pytest) and the
bundle's own source, put on the path by a .pth file the way setup.sh does it. The debootstrap
test runs the real setup.sh instead.
"""

import json
import numbers
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

from grader_cli import run_grader

from grader.integrations.visible_checks import TITLE as VISIBLE_CHECK
from grader.model import CATEGORIES
from grader.reports.hidden_entries import NOT_JUDGED_NAME

PROJECT = Path(__file__).resolve().parents[2]
REFERENCE = PROJECT / "fixtures" / "submissions" / "correct" / "reference.py"
SEARCHER = PROJECT / "fixtures/submissions/adversarial/searches-disk-for-hidden-tests.py"
HONEST_TWIN = PROJECT / "fixtures/submissions/twins/searches-disk-for-hidden-tests.py"

# Gradescope's results.json format ("Autograder Specifications", gradescope-autograders
# .readthedocs.io/en/latest/specs/): the fields it documents, and what each may hold.
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}
TOP_LEVEL_FIELDS = {
    "score",
    "execution_time",
    "output",
    "output_format",
    "test_output_format",
    "test_name_format",
    "visibility",
    "stdout_visibility",
    "extra_data",
    "tests",
    "leaderboard",
}
TEST_FIELDS = {
    "score",
    "max_score",
    "status",
    "name",
    "name_format",
    "number",
    "output",
    "output_format",
    "tags",
    "visibility",
    "extra_data",
}


def build_bundle(folder, *options):
    """Build the bundle with `python -m grader gradescope-bundle` and these options; return it."""
    path = Path(folder) / "autograder.zip"
    completed = run_grader("gradescope-bundle", path, *options, timeout=120)
    assert completed.returncode == 0, completed.stderr
    return path


def autograder_root(bundle, folder):
    """Lay out `folder` as Gradescope lays out /autograder after setup.sh has run."""
    folder = Path(folder)
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(folder / "source")
    (folder / "submission").mkdir()
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import sysconfig; print(sysconfig.get_path('purelib'))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    project_packages = sysconfig.get_path("purelib")
    pth = f"{folder / 'source'}\n{project_packages}\n"
    (Path(site) / "autograder-source.pth").write_text(pth, encoding="utf-8")
    return folder


def run_autograder(root, path="/usr/bin:/bin", **environment):
    """Run the root's run_autograder as Gradescope does; return the finished process."""
    return subprocess.run(
        ["bash", str(Path(root) / "source" / "run_autograder")],
        env={"PATH": path, "AUTOGRADER_ROOT": str(root), "LANG": "C.UTF-8", **environment},
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def run_selfcheck(root, environment=None, timeout=300):
    """Run the bundle's own self-check in `root`, as setup.sh does; return the finished process.

    It runs from source/, so the bundle's grader is the one imported, not this checkout's.
    """
    return subprocess.run(
        [
            str(Path(root) / "venv" / "bin" / "python"),
            "-m",
            "grader.integrations.gradescope_run",
            "selfcheck",
            str(root),
        ],
        env=environment,
        cwd=Path(root) / "source",
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def graded(root):
    """Run run_autograder, which must succeed; return its results.json as data."""
    completed = run_autograder(root)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return json.loads((Path(root) / "results" / "results.json").read_text(encoding="utf-8"))


def hidden_tests_of(document):
    """Return the hidden tests of a results.json: those tagged with a category."""
    return [test for test in document["tests"] if test.get("tags")]


def upload_checks_of(document):
    """Return the upload checks of a results.json: untagged tests that are no visible check."""
    return [
        test
        for test in document["tests"]
        if not test.get("tags") and not test["name"].startswith(VISIBLE_CHECK)
    ]


def visible_checks_of(document):
    """Return the course's visible checks of a results.json, in order."""
    return [test for test in document["tests"] if test["name"].startswith(VISIBLE_CHECK)]


def assert_gradescope_format(document, hidden_test_count, hidden_visibility="visible"):
    """Check every field against Gradescope's results.json format and our use of it."""
    assert set(document) <= TOP_LEVEL_FIELDS
    assert isinstance(document["score"], numbers.Real) and not isinstance(document["score"], bool)
    assert isinstance(document["output"], str) and document["output"]
    assert isinstance(document["execution_time"], int) and document["execution_time"] >= 0
    assert isinstance(document["extra_data"]["isolation"], str)
    for test in document["tests"]:
        assert set(test) <= TEST_FIELDS, test
        for field in ("score", "max_score"):
            assert isinstance(test[field], numbers.Real) and not isinstance(test[field], bool)
        assert 0 <= test["score"] <= test["max_score"]
        assert test["status"] in {"passed", "failed"}
        assert isinstance(test["name"], str) and test["name"]
        assert isinstance(test["output"], str)
        assert test["visibility"] in VISIBILITIES
    assert len({test["name"] for test in document["tests"]}) == len(document["tests"])
    hidden = hidden_tests_of(document)
    assert len(hidden) == hidden_test_count
    for test in hidden:
        assert len(test["tags"]) == 1 and test["tags"][0] in CATEGORIES
        # A test none of whose cases could be judged is worth 0 of 0, and never shown as passed.
        passed = 0 < test["score"] == test["max_score"]
        assert passed == (test["status"] == "passed"), test
        if test["max_score"] == 0:
            assert test["name"].endswith(NOT_JUDGED_NAME) and "Not judged" in test["output"]
        assert test["visibility"] == hidden_visibility
    checks = upload_checks_of(document)
    assert checks and document["tests"][: len(checks)] == checks  # the upload checks come first
    for check in checks:
        assert (check["score"], check["max_score"], check["visibility"]) == (0, 0, "visible")
    # Each test's points are whole cents, which add up exactly to the score.
    assert sum(round(test["score"] * 100) for test in hidden) == round(document["score"] * 100)
