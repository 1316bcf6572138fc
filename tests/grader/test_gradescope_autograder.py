"""The Gradescope bundle, unpacked as Gradescope lays it out, grades a submission correctly.

Each test builds an /autograder-like root in a temporary folder: the unzipped bundle in
source/, the student's files in submission/, and in place of what setup.sh installs, a virtual
environment whose only packages are this project's (for pytest) and the bundle's own source, put
on the path by a .pth file the way setup.sh does it. run_autograder then runs with
AUTOGRADER_ROOT pointing at that root.
"""

import json
import numbers
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from importlib.metadata import requires
from pathlib import Path

import pytest

from grader import gradescope
from grader.model import CATEGORIES

PROJECT = Path(__file__).resolve().parents[2]
GRACE = PROJECT / "fixtures" / "sample-class" / "submitted" / "grace" / "bounded_results"
REFERENCE = PROJECT / "fixtures" / "submissions" / "correct" / "reference.py"

# Gradescope's results.json fields (gradescope-autograders.readthedocs.io, "Autograder
# Specifications"), with what each may hold.
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


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return gradescope.build_bundle(tmp_path_factory.mktemp("bundle") / "autograder.zip")


@pytest.fixture(scope="module")
def hidden_test_count():
    from grader.run import hidden_tests

    return len(hidden_tests())


def autograder_root(bundle, folder):
    """Lay out `folder` as Gradescope lays out /autograder after setup.sh has run."""
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


def run_autograder(root):
    completed = subprocess.run(
        ["bash", str(root / "source" / "run_autograder")],
        env={"PATH": "/usr/bin:/bin", "AUTOGRADER_ROOT": str(root), "LANG": "C.UTF-8"},
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))


def assert_gradescope_format(document, hidden_test_count):
    """Check every field against Gradescope's results.json format and our use of it."""
    assert set(document) <= TOP_LEVEL_FIELDS
    assert isinstance(document["score"], numbers.Real) and not isinstance(document["score"], bool)
    assert isinstance(document["output"], str) and document["output"]
    assert document.get("visibility", "visible") in VISIBILITIES
    tests = document["tests"]
    assert isinstance(tests, list) and len(tests) == hidden_test_count
    for test in tests:
        assert set(test) <= TEST_FIELDS, test
        for field in ("score", "max_score"):
            assert isinstance(test[field], numbers.Real) and not isinstance(test[field], bool)
        assert 0 <= test["score"] <= test["max_score"]
        assert test["status"] in {"passed", "failed"}
        assert (test["score"] == test["max_score"]) == (test["status"] == "passed")
        assert isinstance(test["name"], str) and test["name"]
        assert isinstance(test["output"], str)
        assert test["visibility"] in VISIBILITIES
        assert len(test["tags"]) == 1 and test["tags"][0] in CATEGORIES
    assert len({test["name"] for test in tests}) == len(tests)
    # Each test's points are rounded to cents, so their sum may drift by half a cent a test.
    total = sum(test["score"] for test in tests)
    assert abs(total - document["score"]) <= 0.005 * len(tests)


def standalone_results(submission, out):
    completed = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(submission), "--out", str(out)],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return (out / submission.name / "results.json").read_text(encoding="utf-8")


def test_the_bundles_own_grader_is_what_the_isolated_worker_imports(bundle, tmp_path):
    root = autograder_root(bundle, tmp_path)
    found = subprocess.run(
        [
            str(root / "venv" / "bin" / "python"),
            "-I",
            "-c",
            "import grader; print(grader.__file__)",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(found).is_relative_to(root / "source")


def test_a_lessons_folder_is_graded_as_the_standalone_grader_grades_it(
    bundle, hidden_test_count, tmp_path
):
    root = autograder_root(bundle, tmp_path / "root")
    shutil.copytree(GRACE, root / "submission" / "bounded_results")
    document = run_autograder(root)
    assert_gradescope_format(document, hidden_test_count)
    expected = standalone_results(GRACE.parent, tmp_path / "standalone")
    assert (root / "results" / "results.json").read_text(encoding="utf-8") == expected
    assert 0 < document["score"] < 70


def test_the_reference_python_file_scores_full_marks(bundle, hidden_test_count, tmp_path):
    root = autograder_root(bundle, tmp_path)
    shutil.copy(REFERENCE, root / "submission" / "reference.py")
    document = run_autograder(root)
    assert_gradescope_format(document, hidden_test_count)
    assert document["score"] == 70
    assert {test["status"] for test in document["tests"]} == {"passed"}


def test_an_empty_submission_gets_zero_and_a_sentence_saying_what_to_upload(
    bundle, hidden_test_count, tmp_path
):
    root = autograder_root(bundle, tmp_path)
    document = run_autograder(root)
    assert_gradescope_format(document, hidden_test_count)
    assert document["score"] == 0
    assert "No lesson notebook or .py file was found" in document["output"]


IMPORTS_PROBE = """
import importlib.metadata, json, sys
import grader.gradescope, grader.job, grader.plugin, grader.sandbox.inside.guard
tops = {name.split(".")[0] for name in sys.modules}
outside = sorted(t for t in tops if t not in sys.stdlib_module_names and not t.startswith("_"))
owners = importlib.metadata.packages_distributions()
print(json.dumps({t: [sys.modules[t].__file__, owners.get(t, [])] for t in outside}))
"""


def test_grading_imports_nothing_beyond_the_bundle_and_its_requirements(bundle, tmp_path):
    root = autograder_root(bundle, tmp_path)
    probe = subprocess.run(
        [str(root / "venv" / "bin" / "python"), "-I", "-c", IMPORTS_PROBE],
        capture_output=True,
        text=True,
        check=True,
    )
    requirement = (root / "source" / "requirements.txt").read_text(encoding="utf-8").split("==")[0]
    dependencies = [r for r in requires(requirement) or [] if "extra ==" not in r]
    allowed = {requirement, *(re.split(r"[ ;<>=!~\[]", r)[0] for r in dependencies)}
    allowed = {name.lower() for name in allowed}
    for module, (path, distributions) in json.loads(probe.stdout).items():
        if Path(path).is_relative_to(root / "source"):
            continue
        assert {d.lower() for d in distributions} & allowed, module
