"""The grader's bytecode is written once, at install time, even where Python would write none."""

import importlib.util
from pathlib import Path

import pytest

from grader.install.bytecode import NO_BYTECODE_VARIABLE, write_bytecode
from grader.paths import HIDDEN_TESTS, PROJECT_ROOT
from grader.sandbox.runtime import prepare_runtime

pytestmark = []


def test_the_grader_and_its_hidden_tests_are_compiled_where_bytecode_is_not_written(monkeypatch):
    monkeypatch.setenv(NO_BYTECODE_VARIABLE, "1")
    sources = (PROJECT_ROOT / "grader" / "model.py", HIDDEN_TESTS / "test_envelope.py")
    compiled = [Path(importlib.util.cache_from_source(str(source))) for source in sources]
    for written in compiled:
        written.unlink(missing_ok=True)
    write_bytecode()
    assert all(written.is_file() for written in compiled)


def test_a_folder_that_is_not_the_project_is_refused_in_one_line(tmp_path):
    with pytest.raises(RuntimeError, match="holds no grader package"):
        write_bytecode(tmp_path)


def test_a_jobs_runtime_copy_takes_the_projects_bytecode_instead_of_compiling_it(tmp_path):
    write_bytecode()
    runtime = prepare_runtime(tmp_path)
    for module in ("grader/sandbox/inside/guard.py", "course/carry/execute.py"):
        ours = Path(importlib.util.cache_from_source(str(PROJECT_ROOT / module)))
        theirs = Path(importlib.util.cache_from_source(str(runtime / module)))
        assert theirs.read_bytes() == ours.read_bytes()
        # Copied with its time, not written again by a compiler a moment ago.
        assert theirs.stat().st_mtime_ns == ours.stat().st_mtime_ns
