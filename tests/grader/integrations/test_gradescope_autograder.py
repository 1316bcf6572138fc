"""The Gradescope bundle, unpacked as Gradescope lays it out, grades a submission correctly.

Each test builds an /autograder-like root in a temporary folder (tests/grader/gradescope_roots.py)
and runs the bundle's run_autograder with AUTOGRADER_ROOT pointing at it.
"""

import json
import re
import shutil
import stat
import subprocess
from importlib.metadata import requires
from pathlib import Path

import pytest
from grader_cli import run_grader
from gradescope_roots import (
    PROJECT,
    REFERENCE,
    assert_gradescope_format,
    autograder_root,
    build_bundle,
    graded,
    hidden_tests_of,
    run_selfcheck,
    upload_checks_of,
)

from grader.integrations import gradescope_run

pytestmark = []

GRACE = PROJECT / "fixtures" / "sample-class" / "submitted" / "grace" / "bounded_results"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return build_bundle(tmp_path_factory.mktemp("bundle"))


@pytest.fixture(scope="module")
def after_due_date_bundle(tmp_path_factory):
    folder = tmp_path_factory.mktemp("after-due-date")
    return build_bundle(folder, "--hidden-visibility", "after_due_date")


@pytest.fixture(scope="module")
def hidden_test_count():
    from grader.batch.run import hidden_tests
    from grader.reports.hidden_entries import count_hidden_tests

    return count_hidden_tests(test.test_id for test in hidden_tests())


def standalone_results(submission, out):
    completed = run_grader("grade", submission, "--out", out, timeout=300)
    assert completed.returncode == 0, completed.stderr
    return json.loads((out / submission.name / "results.json").read_text(encoding="utf-8"))


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


@pytest.mark.bwrap
def test_a_lessons_folder_is_graded_as_the_standalone_grader_grades_it(
    bundle, hidden_test_count, tmp_path
):
    root = autograder_root(bundle, tmp_path / "root")
    shutil.copytree(GRACE, root / "submission" / "bounded_results")
    document = graded(root)
    assert_gradescope_format(document, hidden_test_count)
    expected = standalone_results(GRACE.parent, tmp_path / "standalone")
    assert document["score"] == expected["score"]
    assert document["output"] == expected["output"]
    assert hidden_tests_of(document) == expected["tests"]
    assert 0 < document["score"] < 70


@pytest.mark.bwrap
def test_a_lessons_folder_gets_one_visible_upload_check_per_lesson_step(bundle, tmp_path):
    root = autograder_root(bundle, tmp_path)
    lessons = root / "submission" / "bounded_results"
    shutil.copytree(GRACE, lessons)
    (lessons / "03-json-vocabulary.ipynb").unlink()
    checks = upload_checks_of(graded(root))
    steps = [check for check in checks if check["name"].startswith("Upload: Step ")]
    assert len(steps) == 7
    failed = [check for check in steps if check["status"] == "failed"]
    assert [check["name"] for check in failed] == ["Upload: Step 3 (03-json-vocabulary.ipynb)"]
    assert "missing from the folder bounded_results/" in failed[0]["output"]
    assert checks[-1]["name"] == "Grading ran to the end" and checks[-1]["status"] == "passed"


@pytest.mark.bwrap
def test_the_reference_python_file_scores_full_marks(bundle, hidden_test_count, tmp_path):
    root = autograder_root(bundle, tmp_path)
    shutil.copy(REFERENCE, root / "submission" / "reference.py")
    document = graded(root)
    assert_gradescope_format(document, hidden_test_count)
    assert document["score"] == 70
    assert {test["status"] for test in document["tests"]} == {"passed"}
    assert document["extra_data"]["isolation"].startswith("bubblewrap")


@pytest.mark.bwrap
def test_an_empty_submission_gets_zero_and_a_sentence_saying_what_to_upload(
    bundle, hidden_test_count, tmp_path
):
    root = autograder_root(bundle, tmp_path)
    document = graded(root)
    assert_gradescope_format(document, hidden_test_count)
    assert document["score"] == 0
    assert "No lesson notebook or .py file was found" in document["output"]
    [upload, ran] = upload_checks_of(document)
    assert upload["status"] == "failed" and "No lesson notebook" in upload["output"]
    assert ran["status"] == "failed"


@pytest.mark.bwrap
def test_hidden_tests_wait_for_the_due_date_and_the_summary_keeps_the_score_back(
    after_due_date_bundle, hidden_test_count, tmp_path
):
    root = autograder_root(after_due_date_bundle, tmp_path)
    shutil.copy(REFERENCE, root / "submission" / "reference.py")
    document = graded(root)
    assert_gradescope_format(document, hidden_test_count, hidden_visibility="after_due_date")
    assert document["score"] == 70
    assert "70" not in document["output"]
    assert "after the due date" in document["output"]


@pytest.mark.bwrap
def test_run_autograder_prints_the_isolation_in_force_for_the_instructor(bundle, tmp_path):
    root = autograder_root(bundle, tmp_path)
    shutil.copy(REFERENCE, root / "submission" / "reference.py")
    completed = subprocess.run(
        ["bash", str(root / "source" / "run_autograder")],
        env={"PATH": "/usr/bin:/bin", "AUTOGRADER_ROOT": str(root), "LANG": "C.UTF-8"},
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    document = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert f"Isolation: {document['extra_data']['isolation']}\n" in completed.stdout
    assert "Isolation: bubblewrap (" in completed.stdout


def test_run_autograder_runs_the_bundle_s_own_grading_entry(bundle, tmp_path):
    root = autograder_root(bundle, tmp_path)
    script = (root / "source" / "run_autograder").read_text(encoding="utf-8")
    assert "-m grader.integrations.gradescope_run " in script


@pytest.mark.bwrap
def test_run_autograder_makes_the_source_folder_root_s_alone(bundle, tmp_path):
    root = autograder_root(bundle, tmp_path)
    (root / "source").chmod(0o755)
    (root / "source" / "grader" / "hidden" / "test_envelope.py").chmod(0o644)
    unpacked = [root / "source", *(root / "source").rglob("*")]
    graded(root)
    for path in unpacked:
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path


@pytest.mark.bwrap
def test_the_bundle_self_check_passes_with_the_reference_at_full_marks(bundle, tmp_path):
    root = autograder_root(bundle, tmp_path)
    completed = run_selfcheck(root)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "✓ the reference solution scores 70.00 out of 70.00" in completed.stdout
    assert "✓ the submission that searches the disk for the hidden tests" in completed.stdout
    assert "Self-check passed" in completed.stdout


IMPORTS_PROBE = """
import importlib.metadata, json, sys
import grader.integrations.gradescope_run, grader.job.main, grader.job.grading, grader.job.suite
import grader.sandbox.inside.guard
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
    lines = (root / "source" / "requirements.txt").read_text(encoding="utf-8").split()
    requirements = [line.split("==")[0] for line in lines]
    dependencies = [r for name in requirements for r in requires(name) or [] if "extra ==" not in r]
    allowed = {*requirements, *(re.split(r"[ ;<>=!~\[]", r)[0] for r in dependencies)}
    allowed = {name.lower() for name in allowed}
    for module, (path, distributions) in json.loads(probe.stdout).items():
        if Path(path).is_relative_to(root / "source"):
            continue
        assert {d.lower() for d in distributions} & allowed, module


@pytest.mark.bwrap
def test_an_upload_linking_to_the_autograders_own_reference_earns_nothing(bundle, tmp_path):
    root = autograder_root(bundle, tmp_path)
    reference = root / "source" / gradescope_run.SELFCHECK_FOLDER / "reference.py"
    assert reference.is_file()  # what the link would have handed over
    (root / "submission" / "reference.py").symlink_to(reference)
    document = graded(root)
    assert document["score"] == 0
    assert "reference.py is a link to another file" in document["output"]
