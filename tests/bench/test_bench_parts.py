"""The benchmark builds the class it says it builds, and notices when the graders disagree."""

import filecmp
import json
import subprocess
import sys

import pytest

from bench.baseline import BaselineError, baseline_tree
from bench.compare import compare_points
from bench.make_class import CATALOGUE, make_class, submission_mix
from bench.measure import PROJECT, measured
from course.carry.assemble import notebook_exercise_cells
from course.manifest import load_course
from grader.model import CATEGORIES

pytestmark = []

COURSE = load_course()


def test_the_mix_holds_correct_buggy_and_adversarial_submissions():
    groups = {path.relative_to(CATALOGUE).parts[0] for path in submission_mix()[:10]}
    assert groups == {"correct", "buggy", "adversarial"}
    assert all(path.is_file() for path in submission_mix())


def test_each_student_gets_every_lesson_with_a_catalogue_submission_as_the_last_step(tmp_path):
    students = make_class(tmp_path, 3)
    assert students == ["student-0000", "student-0001", "student-0002"]
    mix = submission_mix()
    for number, student in enumerate(students):
        folder = tmp_path / "submitted" / student / COURSE.assignment
        assert sorted(p.name for p in folder.iterdir()) == [s.notebook for s in COURSE.steps]
        last = folder / COURSE.steps[-1].notebook
        json.loads(last.read_text(encoding="utf-8"))  # still a notebook
        [cell] = [c for c in notebook_exercise_cells(last, COURSE).cells]
        assert cell.source == mix[number].read_text(encoding="utf-8")


def test_the_same_size_gives_the_same_class(tmp_path):
    make_class(tmp_path / "a", 4)
    make_class(tmp_path / "b", 4)
    first = sorted((tmp_path / "a").rglob("*.ipynb"))
    second = sorted((tmp_path / "b").rglob("*.ipynb"))
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]


def test_equal_points_agree_and_any_difference_is_reported():
    points = {category: 10.0 for category in CATEGORIES}
    ours = {"ada": dict(points), "alan": dict(points, vocabulary=7.5)}
    assert compare_points(ours, {"ada": dict(points)}) == []
    problems = compare_points(ours, {"alan": dict(points), "bob": {}})
    assert problems[0] == "alan vocabulary: grader 7.5, nbgrader 10.0"
    assert len(problems) == 1 + len(CATEGORIES)


BURN_IN_A_NAMESPACE = [
    "bwrap",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--unshare-pid",
    "--as-pid-1",
    sys.executable,
    "-c",
    "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass",
]


@pytest.mark.bwrap
def test_processor_time_counts_work_done_inside_a_process_namespace(tmp_path):
    # Workers are reaped inside bubblewrap's namespace, where wait() in the benchmark never sees
    # their time; the cgroup's count does.
    found = measured(
        [sys.executable, "-c", f"import subprocess; subprocess.run({BURN_IN_A_NAMESPACE!r})"],
        tmp_path,
    )
    assert found.cpu_complete
    assert found.cpu_seconds >= 0.4
    assert found.seconds >= 0.4


def test_a_baseline_tree_is_the_old_grader_with_this_hidden_suite():
    with baseline_tree("HEAD") as tree:
        assert (tree / "grader" / "pipeline.py").is_file()
        same = filecmp.dircmp(tree / "grader" / "hidden", PROJECT / "grader" / "hidden")
        assert not same.left_only and not same.right_only and not same.diff_files
    assert not tree.exists()


@pytest.fixture
def project_with_a_changed_suite(tmp_path, monkeypatch):
    """A git project whose hidden suite was changed since its last commit."""
    hidden = tmp_path / "grader" / "hidden"
    hidden.mkdir(parents=True)
    (hidden / "test_rule.py").write_text("committed\n")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "a suite"], check=True)
    (hidden / "test_rule.py").write_text("changed\n")
    monkeypatch.setattr("bench.baseline.PROJECT", tmp_path)
    return hidden / "test_rule.py"


def test_a_baseline_runs_this_suite_or_keeps_its_own(project_with_a_changed_suite):
    with baseline_tree("HEAD") as tree:
        assert (tree / "grader/hidden/test_rule.py").read_text() == "changed\n"
    with baseline_tree("HEAD", own_suite=True) as tree:
        assert (tree / "grader/hidden/test_rule.py").read_text() == "committed\n"


def test_an_unknown_baseline_revision_is_one_clear_error():
    with (
        pytest.raises(BaselineError, match="cannot check out 'no-such-revision'"),
        baseline_tree("no-such-revision"),
    ):
        pass


HOLDS_MEMORY = "import time\nheld = bytearray(64 << 20)\ntime.sleep(0.3)"


@pytest.mark.bwrap
def test_a_run_timed_alone_is_not_sampled_and_a_sampled_run_sees_its_memory(tmp_path):
    # One submission's latency is timed without the sampler, whose walks of the process tree
    # would run on the same processors as the grader.
    timed = measured([sys.executable, "-c", HOLDS_MEMORY], tmp_path, memory=False)
    sampled = measured([sys.executable, "-c", HOLDS_MEMORY], tmp_path)
    assert timed.seconds >= 0.3 and (timed.peak_mib, timed.main_peak_mib) == (0, 0)
    assert sampled.peak_mib >= 64 and sampled.main_peak_mib >= 64
