"""Grading again into the same folder resumes: nothing finished is lost or graded twice.

A class of twelve .py submissions, one of them slow enough (a short sleep per call) that a run
can be interrupted after its first results and before its last. Each interrupted run is then
run again with the same command and must end with the same files as an uninterrupted run; a
changed submission or a damaged stored record is graded again.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from grader_cli import read_grades
from process_trees import SLOW_WRAPPER, WAIT_SECONDS, ProcessTree, wait_for

from grader.paths import PROJECT_ROOT

pytestmark = [pytest.mark.bwrap, pytest.mark.slow]

PROJECT = PROJECT_ROOT
SUBMISSIONS = PROJECT / "fixtures" / "submissions"
CLASS = (
    "correct/reference.py",
    "correct/class-based-invoker.py",
    "correct/deepcopy-if-chain.py",
    "correct/json-round-trip.py",
    "buggy/envelope/ok-is-int.py",
    "buggy/error_codes/keyerror-is-not-found.py",
    "buggy/no_retry/dry-run-first.py",
    "buggy/ownership/shallow-copy-arguments.py",
    "buggy/error_codes/str-of-exception-logs-with-f-string.py",
    "buggy/unicode_boundary/counts-code-points.py",
    "buggy/vocabulary/allows-nan.py",
)
# First in student order, so its job is busy with it while the other job's results come in.
SLOW_STUDENT = "a-slow"
CLASS_SIZE = len(CLASS) + 1
# Never answers in time: left to itself, its job would go on for the whole --timeout.
ENDLESS = """
import time


def invoke_tool(request, tools, **options):
    while True:
        time.sleep(0.5)
"""
ORPHAN_SECONDS = 30  # far less than the endless submission's --timeout
STUDENT_FILES = ("results.json", "feedback.md", "feedback.html")


def make_class(folder):
    """Write the class into `folder` and return it."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in CLASS:
        shutil.copy(SUBMISSIONS / name, folder / Path(name).name)
    reference = (SUBMISSIONS / "correct" / "reference.py").read_text(encoding="utf-8")
    (folder / f"{SLOW_STUDENT}.py").write_text(reference + SLOW_WRAPPER, encoding="utf-8")
    return folder


def grade_command(class_folder, out):
    # The time limit is far above what any of them needs, so no verdict depends on the load.
    limits = ["--jobs", "2", "--timeout", "120"]
    return [sys.executable, "-m", "grader", "grade", str(class_folder), "--out", str(out), *limits]


def grade(class_folder, out):
    """Grade the class into `out` without interruption; return the completed process."""
    completed = subprocess.run(
        grade_command(class_folder, out),
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=WAIT_SECONDS,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed


def interrupt(class_folder, out, number, orphan_seconds=ORPHAN_SECONDS):
    """Start grading, send signal `number` once a first student is done; return the run."""
    process = subprocess.Popen(
        grade_command(class_folder, out),
        cwd=PROJECT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # so the signal reaches the grader alone, as `kill` would
    )
    tree = ProcessTree(process.pid)
    try:
        # grades.csv is written last, once a student's other files are complete.
        wait_for(lambda: (out / "grades.csv").exists() or process.poll() is not None)
        process.send_signal(number)
        stdout, stderr = process.communicate(timeout=WAIT_SECONDS)
        wait_for(lambda: not tree.running(), orphan_seconds)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        tree.stop()
    return process.returncode, stdout, stderr


def grade_files(out):
    """Return every file a run must reproduce byte for byte, by relative path."""
    names = ["grades.csv"]
    for folder in sorted(out.iterdir()):
        if folder.is_dir() and not folder.name.startswith("."):
            names += [f"{folder.name}/{name}" for name in STUDENT_FILES]
    return {name: (out / name).read_bytes() for name in names}


def counts_in(message):
    """Return (reused, graded) from the line a resumed run prints."""
    found = re.search(r"reused (\d+) results .* graded (\d+)", message)
    assert found, message
    return int(found[1]), int(found[2])


@pytest.fixture(scope="module")
def class_folder(tmp_path_factory):
    return make_class(tmp_path_factory.mktemp("resume-class"))


@pytest.fixture(scope="module")
def clean_out(class_folder, tmp_path_factory):
    """The folder of one uninterrupted run, the standard every resumed run must meet."""
    out = tmp_path_factory.mktemp("clean") / "out"
    grade(class_folder, out)
    assert len(read_grades(out)) == CLASS_SIZE
    return out


@pytest.fixture(scope="module")
def clean_run(clean_out):
    return grade_files(clean_out)


def assert_interrupted_cleanly(out, stderr):
    """Every student with a results.json is complete and has a row; the rest are still to do."""
    rows = read_grades(out)
    with_results = {path.parent.name for path in out.glob("*/results.json")}
    assert with_results == set(rows)
    assert 0 < len(rows) < CLASS_SIZE, "the run was meant to be interrupted half way"
    for student in rows:
        results = json.loads((out / student / "results.json").read_text(encoding="utf-8"))
        assert len(results["tests"]) > 0
        assert (out / student / "feedback.md").is_file()
    assert f"{len(rows)} of {CLASS_SIZE} students graded" in stderr
    assert "Run the same command again" in stderr
    return len(rows)


def assert_resumes_to_the_clean_result(class_folder, out, clean_run, kept):
    rerun = grade(class_folder, out)
    assert counts_in(rerun.stdout) == (kept, CLASS_SIZE - kept)
    assert grade_files(out) == clean_run


@pytest.mark.parametrize(
    ("number", "exit_code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["int", "term"]
)
def test_a_stopped_run_keeps_finished_students_and_running_it_again_finishes_identically(
    class_folder, clean_run, tmp_path, number, exit_code
):
    out = tmp_path / "out"
    code, _stdout, stderr = interrupt(class_folder, out, number)
    assert code == exit_code, stderr
    kept = assert_interrupted_cleanly(out, stderr)
    assert_resumes_to_the_clean_result(class_folder, out, clean_run, kept)


def test_a_killed_run_leaves_complete_files_no_orphans_and_resumes_identically(
    class_folder, clean_run, tmp_path
):
    out = tmp_path / "out"
    code, _stdout, _stderr = interrupt(class_folder, out, signal.SIGKILL)
    assert code == -signal.SIGKILL
    for path in out.rglob("*.json"):
        json.loads(path.read_text(encoding="utf-8"))  # whole files only: every write is atomic
    assert set(read_grades(out)) <= {path.parent.name for path in out.glob("*/results.json")}
    # Student records only: the run's own record of its hidden tests starts with a dot.
    kept = len([p for p in (out / ".resume").glob("*.json") if not p.name.startswith(".")])
    assert 0 < kept < CLASS_SIZE
    assert_resumes_to_the_clean_result(class_folder, out, clean_run, kept)


@pytest.mark.parametrize(
    ("number", "exit_code"),
    [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGKILL, -signal.SIGKILL)],
    ids=["int", "term", "kill"],
)
def test_no_job_or_worker_outlives_a_stopped_or_killed_grader(tmp_path, number, exit_code):
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(SUBMISSIONS / "correct" / "reference.py", folder / "reference.py")
    (folder / "z-endless.py").write_text(ENDLESS, encoding="utf-8")
    # interrupt() fails unless every process the grader started has ended within the window.
    code, _stdout, stderr = interrupt(folder, tmp_path / "out", number, orphan_seconds=20)
    assert code == exit_code, stderr
    assert set(read_grades(tmp_path / "out")) == {"reference"}


def copies(class_folder, clean_out, tmp_path):
    """Return a copy of the class and of its uninterrupted run's folder, to change freely."""
    folder = shutil.copytree(class_folder, tmp_path / "class")
    out = shutil.copytree(clean_out, tmp_path / "out")
    return folder, out


def test_only_a_changed_submission_is_graded_again(class_folder, clean_out, clean_run, tmp_path):
    folder, out = copies(class_folder, clean_out, tmp_path)
    buggy = SUBMISSIONS / "buggy" / "envelope" / "ok-is-int.py"
    shutil.copy(buggy, folder / "reference.py")
    os.utime(folder / "json-round-trip.py", (0, 0))  # a new timestamp alone changes nothing
    rerun = grade(folder, out)
    assert counts_in(rerun.stdout) == (CLASS_SIZE - 1, 1)
    after = grade_files(out)
    changed = {name for name in clean_run if after[name] != clean_run[name]}
    assert {name.split("/")[0] for name in changed} == {"grades.csv", "reference"}
    grades = read_grades(out)
    assert grades["reference"]["envelope"] == grades["ok-is-int"]["envelope"] != "10.00"


def test_a_damaged_stored_record_is_graded_again_not_a_crash(
    class_folder, clean_out, clean_run, tmp_path
):
    folder, out = copies(class_folder, clean_out, tmp_path)
    records = out / ".resume"
    (records / "reference.json").write_text('{"fingerprint": "', encoding="utf-8")
    kept = json.loads((records / "allows-nan.json").read_text(encoding="utf-8"))
    kept["outcomes"][0]["status"] = 1  # right fingerprint, wrong content
    (records / "allows-nan.json").write_text(json.dumps(kept), encoding="utf-8")
    rerun = grade(folder, out)
    assert counts_in(rerun.stdout) == (CLASS_SIZE - 2, 2)
    assert grade_files(out) == clean_run
    for name in ("reference", "allows-nan"):
        record = json.loads((records / f"{name}.json").read_text(encoding="utf-8"))
        assert {outcome["status"] for outcome in record["outcomes"]} <= {"passed", "failed"}


def test_a_student_no_longer_submitted_leaves_grades_csv_but_keeps_the_folder(
    class_folder, clean_out, tmp_path
):
    folder, out = copies(class_folder, clean_out, tmp_path)
    (folder / "allows-nan.py").unlink()
    rerun = grade(folder, out)
    assert counts_in(rerun.stdout) == (CLASS_SIZE - 1, 0)
    assert "allows-nan" not in read_grades(out)
    assert len(read_grades(out)) == CLASS_SIZE - 1
    assert (out / "allows-nan" / "results.json").is_file()
