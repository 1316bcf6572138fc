"""On Gradescope the tests shown at once are the course's visible checks, run in the sandbox.

Each exercise function the upload defines gets a 0-point test saying what its check cell in the
notebook would say; an untouched lesson and a finished one read differently. The checks run
beside student code, so two attacks are tried against them, each beside its honest twin: one
tries to show itself the hidden tests through a check's message, one forges its own checks.
"""

import json
import os
import shutil
import time
from pathlib import Path

import psutil
import pytest
from gradescope_roots import (
    PROJECT,
    REFERENCE,
    autograder_root,
    build_bundle,
    graded,
    hidden_tests_of,
    visible_checks_of,
)
from process_trees import fork_servers_below

from course.carry.execute import run_cells
from course.checks import CHECKS
from course.checks.visible import visible_checks_json
from course.manifest import load_course
from grader.intake.discover import Found
from grader.integrations.visible_checks import (
    TITLE,
    checks_server,
    read_checks,
    run_visible_checks,
    visible_checks_beside,
)
from grader.pipeline import load_safely

pytestmark = []

FIXTURES = PROJECT / "fixtures" / "visible-checks"
LEAKER = FIXTURES / "leaks-hidden-tests-through-a-check.py"
FORGER = FIXTURES / "forges-its-visible-checks.py"
UNTOUCHED_LESSONS = PROJECT / "lessons" / "bounded_results"
FINISHED_LESSONS = PROJECT / "solutions" / "bounded_results"
HIDDEN = PROJECT / "grader" / "hidden"
[INFINITE_LOOP] = PROJECT.glob("fixtures/submissions/adversarial/**/infinite-loop-in-invoke.py")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return build_bundle(tmp_path_factory.mktemp("bundle"), "--hidden-visibility", "hidden")


def graded_file(bundle, folder, path):
    root = autograder_root(bundle, folder)
    shutil.copy(path, root / "submission" / path.name)
    return graded(root)


def graded_folder(bundle, folder, lessons):
    root = autograder_root(bundle, folder)
    shutil.copytree(lessons, root / "submission" / "bounded_results")
    return graded(root)


@pytest.mark.bwrap
def test_each_exercise_function_gets_a_visible_0_point_check_shown_at_once(bundle, tmp_path):
    document = graded_file(bundle, tmp_path, REFERENCE)
    checks = visible_checks_of(document)
    assert [check["name"].rsplit(", ", 1)[1] for check in checks] == list(CHECKS)
    assert checks[0]["name"] == f"{TITLE}: Step 1 (01-the-envelope.ipynb), make_envelope"
    for check in checks:
        assert (check["score"], check["max_score"], check["visibility"]) == (0, 0, "visible")
        assert check["status"] == "passed" and "checks of" in check["output"]
    assert {test["visibility"] for test in hidden_tests_of(document)} == {"hidden"}


@pytest.mark.bwrap
def test_an_untouched_lesson_reads_unfinished_and_a_finished_one_passes(bundle, tmp_path):
    untouched = visible_checks_of(graded_folder(bundle, tmp_path / "a", UNTOUCHED_LESSONS))
    finished = visible_checks_of(graded_folder(bundle, tmp_path / "b", FINISHED_LESSONS))
    assert len(untouched) == len(finished) == len(CHECKS)
    assert {check["status"] for check in untouched} == {"failed"}
    assert all("is not finished yet" in check["output"] for check in untouched)
    assert {check["status"] for check in finished} == {"passed"}


@pytest.mark.bwrap
def test_a_buggy_function_fails_its_visible_check_with_the_notebooks_words(bundle, tmp_path):
    document = graded_file(bundle, tmp_path, FIXTURES / "twins" / FORGER.name)
    failed = {
        c["name"]: c["output"] for c in visible_checks_of(document) if c["status"] == "failed"
    }
    assert set(failed) == {
        f"{TITLE}: Step 4 (04-byte-budget.ipynb), budget_error",
        f"{TITLE}: Step 7 (07-invoke-tool.ipynb), invoke_tool",
    }
    assert "count the bytes" in failed[f"{TITLE}: Step 4 (04-byte-budget.ipynb), budget_error"]


@pytest.mark.bwrap
def test_the_hidden_tests_cannot_be_shown_through_a_visible_check(bundle, tmp_path):
    leaker = graded_file(bundle, tmp_path / "leaker", LEAKER)
    twin = graded_file(bundle, tmp_path / "twin", FIXTURES / "twins" / LEAKER.name)
    for document in (leaker, twin):
        del document["execution_time"]
    assert leaker == twin
    assert {check["status"] for check in visible_checks_of(leaker)} == {"passed"}


def test_the_leaking_submission_does_read_the_hidden_tests_where_nothing_shuts_it_in(
    monkeypatch,
):
    # The attack is real: run in this process from the project folder, its check says them.
    monkeypatch.chdir(PROJECT)
    submission = load_safely(Found("leaker", LEAKER, "python"), load_course())
    namespace = {}
    run_cells(submission.units, namespace)
    [envelope_check, *_] = json.loads(visible_checks_json(namespace))
    openings = [path.read_text().split("\n", 1)[0] for path in HIDDEN.glob("test_*.py")]
    assert "the hidden tests say" in envelope_check["text"]
    assert any(opening in envelope_check["text"] for opening in openings)


@pytest.mark.bwrap
def test_forged_visible_checks_earn_nothing(bundle, tmp_path):
    forger = graded_file(bundle, tmp_path / "forger", FORGER)
    twin = graded_file(bundle, tmp_path / "twin", FIXTURES / "twins" / FORGER.name)
    assert forger["score"] == twin["score"] < 70
    assert hidden_tests_of(forger) == hidden_tests_of(twin)


@pytest.mark.bwrap
def test_checks_that_never_end_give_one_failed_check_saying_so():
    course = load_course()
    submission = load_safely(Found("loops", INFINITE_LOOP, "python"), course)
    started = time.monotonic()
    [check] = run_visible_checks(submission, course)
    assert (check.title, check.passed) == (TITLE, False)
    assert "did not finish within" in check.output
    assert time.monotonic() - started < 60


@pytest.mark.parametrize(
    "text",
    [None, "not json", "{}", '[{"name": "make_envelope", "ok": 1, "text": ""}]', '[["x"]]'],
)
def test_a_report_the_worker_did_not_make_as_made_reads_as_checks_that_could_not_run(text):
    [check] = read_checks({"checks": text, "problems": [], "forbidden": []}, load_course())
    assert not check.passed and "could not run on your code" in check.output


def test_a_function_reported_twice_counts_as_first_reported():
    text = (
        '[{"name": "make_envelope", "ok": true, "text": "fine"},'
        ' {"name": "make_envelope", "ok": false, "text": "again"}]'
    )
    [check] = read_checks({"checks": text, "problems": [], "forbidden": []}, load_course())
    assert check.passed and check.output == "fine"


def test_nothing_to_run_means_no_visible_check(tmp_path):
    course = load_course()
    empty = load_safely(Found("empty", Path(tmp_path), "lessons"), course)
    assert run_visible_checks(empty, course) == []


@pytest.mark.bwrap
def test_the_checks_run_while_the_caller_goes_on_and_give_what_run_alone_gives():
    course = load_course()
    submission = load_safely(Found("reference", REFERENCE, "python"), course)
    with checks_server() as server, visible_checks_beside(submission, course, server) as checks:
        # Not asked for yet, and already under way: their fork server is serving.
        deadline = time.monotonic() + 30
        while not fork_servers_below() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert fork_servers_below()
        beside = checks()
    assert beside == run_visible_checks(submission, course)
    assert beside and all(check.passed for check in beside)


@pytest.mark.bwrap
def test_a_caller_that_fails_meanwhile_leaves_no_process_of_the_checks_behind():
    course = load_course()
    submission = load_safely(Found("reference", REFERENCE, "python"), course)
    with (
        pytest.raises(KeyError),
        checks_server() as server,
        visible_checks_beside(submission, course, server),
    ):
        raise KeyError("the grading failed")
    assert fork_servers_below() == []
    assert psutil.Process(os.getpid()).children() == []
