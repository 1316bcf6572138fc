"""A class's code is never held at once: each submission is loaded when its turn comes, handed
to a job's input, and kept by the parent without its code."""

import gc
import weakref

import pytest
from grader_cli import read_grades

from grader import pipeline
from grader.batch.run import RunSettings, run_submissions
from grader.model import CodeUnit, Submission
from grader.paths import SUBMISSIONS

pytestmark = [pytest.mark.bwrap]

REFERENCE = (SUBMISSIONS / "correct" / "reference.py").read_text(encoding="utf-8")


def submission(name):
    return Submission(
        name, f"{name}.py", "python", (CodeUnit(f"{name}.py", f"{name}.py", REFERENCE),)
    )


def test_results_carry_the_cells_read_but_not_their_code():
    given = [submission("ada"), submission("bob")]
    results = run_submissions(iter(given), RunSettings(jobs=2))
    assert [r.submission.student for r in results] == ["ada", "bob"]
    assert [r.status for r in results] == ["completed", "completed"]
    for result in results:
        assert [(u.label, u.filename, u.source) for u in result.submission.units] == [
            (f"{result.submission.student}.py", f"{result.submission.student}.py", "")
        ]


def test_a_found_class_is_loaded_one_submission_at_a_time(monkeypatch, tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    names = ("ada", "bob", "cy", "dee")
    for name in names:
        (folder / f"{name}.py").write_text(REFERENCE, encoding="utf-8")
    loaded = []  # weak references: a submission still alive is still held by someone
    alive_at_each_load = []
    real_load = pipeline.load_safely

    def load_and_watch(found, course=None):
        gc.collect()
        alive_at_each_load.append(sum(ref() is not None for ref in loaded))
        result = real_load(found, course)
        loaded.append(weakref.ref(result))
        return result

    monkeypatch.setattr(pipeline, "load_safely", load_and_watch)
    found = pipeline.find_submissions([folder], tmp_path / "out")
    assert all(not isinstance(item, Submission) for item in found)  # nothing read yet
    pipeline.grade_submissions(found, tmp_path / "out", RunSettings(jobs=1))
    # At most the one before, which the loop still names as it loads the next: never all.
    assert len(alive_at_each_load) == len(names)
    assert max(alive_at_each_load) <= 1
    grades = read_grades(tmp_path / "out")
    assert {student: row["status"] for student, row in grades.items()} == dict.fromkeys(
        names, "completed"
    )
