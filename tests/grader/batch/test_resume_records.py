"""What decides whether a stored result may be reused: the fingerprints and the record itself."""

import os
import signal
import time
from dataclasses import replace

from grader.batch import resume
from grader.batch.run import RunSettings
from grader.model import CodeUnit, Limits, RunResult, Submission, TestOutcome

pytestmark = []

UNIT = CodeUnit(label="ada.py", filename="ada.py", source="def invoke_tool(r, t):\n    pass\n")
SUBMISSION = Submission(student="ada", path="/class/ada.py", kind="python", units=(UNIT,))
RESULT = RunResult(
    SUBMISSION,
    (TestOutcome("envelope/test_id", "envelope", "failed", "The id comes back.", "hi\n"),),
    "completed",
)


def test_the_fingerprint_depends_on_what_is_graded_not_where_it_lies():
    version = resume.grader_version(RunSettings())
    moved = replace(SUBMISSION, path="/elsewhere/ada.py")
    edited = replace(SUBMISSION, units=(replace(UNIT, source=UNIT.source + "# edited\n"),))
    assert resume.fingerprint(moved, version) == resume.fingerprint(SUBMISSION, version)
    assert resume.fingerprint(edited, version) != resume.fingerprint(SUBMISSION, version)
    assert resume.fingerprint(SUBMISSION, "another grader") != resume.fingerprint(
        SUBMISSION, version
    )


def test_the_grader_version_follows_the_limits_but_not_the_number_of_jobs():
    version = resume.grader_version(RunSettings())
    assert resume.grader_version(RunSettings(jobs=4)) == version
    assert resume.grader_version(RunSettings(limits=Limits(timeout=3.0))) != version


def test_the_grader_version_follows_the_hidden_tests_source(tmp_path, monkeypatch):
    (tmp_path / "hidden").mkdir()
    test_file = tmp_path / "hidden" / "test_one.py"
    test_file.write_text("def test_one():\n    pass\n", encoding="utf-8")
    monkeypatch.setattr(resume, "PROJECT_ROOT", tmp_path)
    monkeypatch.setattr(resume, "VERDICT_SOURCES", ("hidden",))
    before = resume.grader_version(RunSettings())
    test_file.write_text("def test_one():\n    assert False\n", encoding="utf-8")
    assert resume.grader_version(RunSettings()) != before


def test_a_saved_result_comes_back_only_under_its_own_fingerprint(tmp_path):
    resume.save(tmp_path, RESULT, "key-1")
    assert resume.stored_result(tmp_path, SUBMISSION, "key-1") == RESULT
    assert resume.stored_result(tmp_path, SUBMISSION, "key-2") is None


def test_a_missing_or_malformed_record_is_no_result(tmp_path):
    assert resume.stored_result(tmp_path, SUBMISSION, "key-1") is None
    path = resume.record_path(tmp_path, "ada")
    path.parent.mkdir(parents=True)
    for text in ("", "[]", '{"fingerprint": "key-1"}', "\udcff"):
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
        assert resume.stored_result(tmp_path, SUBMISSION, "key-1") is None
    resume.save(tmp_path, replace(RESULT, status="finished"), "key-1")
    assert resume.stored_result(tmp_path, SUBMISSION, "key-1") is None


def test_a_record_killed_while_being_replaced_is_the_old_one_or_the_new_one(tmp_path):
    # Large enough that a write takes a while: a kill lands in the middle of one.
    outcome = RESULT.outcomes[0]
    big = replace(RESULT, outcomes=(replace(outcome, output="x" * 200_000),) * 20)
    resume.save(tmp_path, RESULT, "old")
    for attempt in range(20):
        child = os.fork()
        if child == 0:  # pragma: no cover - the child saves until it is killed
            while True:
                resume.save(tmp_path, big, "new")
        time.sleep(0.005 + attempt * 0.002)
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        old = resume.stored_result(tmp_path, SUBMISSION, "old")
        new = resume.stored_result(tmp_path, SUBMISSION, "new")
        assert (old, new) in ((RESULT, None), (None, big))
        resume.save(tmp_path, RESULT, "old")
