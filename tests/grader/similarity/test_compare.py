"""Comparing a class's code: copies rank first, the course's own code is never a match."""

import os
import subprocess
import sys

import numpy as np
import pytest

from course.manifest import load_course
from grader.intake.discover import discover
from grader.paths import FIXTURES, PROJECT_ROOT
from grader.similarity.compare import class_code, compare, similarity_of
from grader.similarity.fingerprints import boilerplate_hashes, fingerprint, kgram_hashes

pytestmark = []

COPIED_PAIR = FIXTURES / "classes" / "copied-pair"


@pytest.fixture(scope="module")
def course():
    return load_course()


@pytest.fixture(scope="module")
def found(course):
    return discover([COPIED_PAIR], course)


@pytest.fixture(scope="module")
def result(found, course):
    return similarity_of(found, course, 0.5)


def pairs_of(similarity):
    return [(p.student_a, p.student_b) for p in similarity.pairs]


def test_the_copied_pair_is_the_only_pair_at_the_default_threshold(result):
    assert result.compared == 6
    assert pairs_of(result) == [("ana", "ben")]
    assert result.pairs[0].score > 0.9


def test_renamed_reordered_and_commented_code_still_matches_almost_whole(result):
    copied = result.pairs[0]
    assert copied.share_a > 0.9 and copied.share_b > 0.9


def test_students_sharing_only_the_starter_code_do_not_appear_even_at_a_low_threshold(
    found, course
):
    low = similarity_of(found, course, 0.05)
    assert pairs_of(low)[0] == ("ana", "ben")
    assert ("cleo", "dev") not in pairs_of(low)


def test_without_the_course_code_left_out_the_starter_only_pair_would_be_a_match(found, course):
    prints = [fingerprint(s, code, np.zeros(0, np.int64)) for s, code in class_code(found, course)]
    assert ("cleo", "dev") in pairs_of(compare(prints, 0.5))


def test_independent_answers_score_well_below_the_copied_pair(found, course):
    everything = similarity_of(found, course, 0.01)
    scores = {(p.student_a, p.student_b): p.score for p in everything.pairs}
    assert max(s for pair, s in scores.items() if pair != ("ana", "ben")) < 0.5


def test_the_top_pair_is_shown_with_its_code_and_matching_regions(result):
    (shown,) = result.shown
    assert shown.code_a.startswith('"""Ana')
    assert shown.regions_a and shown.regions_b
    assert all(0 <= start < end <= len(shown.code_b) for start, end in shown.regions_b)


def test_the_course_code_itself_leaves_no_fingerprint(course):
    lesson_cell = (
        "def make_envelope(request_id, *, value=None, error=None):\n"
        '    """Return a new envelope: a success when `error` is None, else a failure with '
        'that code."""\n    # YOUR CODE HERE\n    raise NotImplementedError()\n'
    )
    assert fingerprint("x", lesson_cell, boilerplate_hashes(course)).hashes == set()
    assert fingerprint("x", lesson_cell, np.zeros(0, np.int64)).hashes


def test_fingerprints_are_the_same_in_every_process():
    script = (
        "from grader.similarity.fingerprints import kgram_hashes\n"
        "print(kgram_hashes('def f(x):\\n    return x + 1\\n' * 3).tolist())"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(PROJECT_ROOT)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1
    assert outputs.pop().strip() == str(kgram_hashes("def f(x):\n    return x + 1\n" * 3).tolist())


def test_a_student_whose_code_cannot_be_read_is_left_out(tmp_path, course):
    (tmp_path / "ada.py").write_bytes((COPIED_PAIR / "ana.py").read_bytes())
    (tmp_path / "bin.py").write_bytes(b"\x00binary")
    assert [student for student, _ in class_code(discover([tmp_path], course), course)] == ["ada"]
