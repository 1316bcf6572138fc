"""A grade depends on the code alone: a busy machine neither costs a correct copy a point nor
saves an endless loop from its time-out.

The load is bench.load's shared server: busy programs in sessions of their own (several per
processor), process churn, fsync'd writes, memory held and touched, the page cache emptied, and
another grading of a class beside the one under test. All of it is started and stopped here,
and ends by itself if this test is killed.
"""

import json
import time

import pytest
from grader_cli import read_grades, run_grader

from bench.load import Load, busy_machine
from bench.under_load import grade_command, write_copies
from grader.paths import SUBMISSIONS

pytestmark = [pytest.mark.bwrap, pytest.mark.slow]

COPIES = 8
LOAD = Load(busy=8, memory_mb=2048)  # four busy programs a processor, on CI's two
LOAD_SECONDS = 900  # an upper bound: the load is stopped as soon as the test is done
LOOP_TIMEOUT = 2.0  # the loops' processor-time limit (grade --timeout): a short test
REFERENCE = (SUBMISSIONS / "correct" / "reference.py").read_text(encoding="utf-8")
# Correct, but computing 50 ms a call: over a thousand calls, far past any limit.
CPU_HOG = (
    REFERENCE
    + "\n_honest = invoke_tool\nimport time\n\n"
    + "def invoke_tool(request, tools, **options):\n"
    + "    end = time.process_time() + 0.05\n"
    + "    while time.process_time() < end:\n"
    + "        pass\n"
    + "    return _honest(request, tools, **options)\n"
)
INFINITE_LOOP = SUBMISSIONS / "adversarial" / "timeout" / "infinite-loop-in-invoke.py"


@pytest.fixture(scope="module")
def classes(tmp_path_factory):
    """Two classes of correct copies: the one under test, and another graded beside it."""
    root = tmp_path_factory.mktemp("under-load")
    return write_copies(root / "class", COPIES), write_copies(root / "other", COPIES)


@pytest.fixture(scope="module")
def loops(tmp_path_factory):
    """An endless loop and a correct but slow CPU hog, each a submission of its own."""
    folder = tmp_path_factory.mktemp("loops")
    (folder / "infinite-loop.py").write_text(INFINITE_LOOP.read_text(encoding="utf-8"))
    (folder / "cpu-hog.py").write_text(CPU_HOG)
    return folder


def grade_loops(loops, out):
    """Grade the loops; return their rows and how long the run took on the wall clock."""
    started = time.monotonic()
    done = run_grader("grade", *sorted(loops.glob("*.py")), "--out", out, "--timeout", LOOP_TIMEOUT)
    assert done.returncode == 0, done.stderr[-2000:]
    return read_grades(out), time.monotonic() - started


@pytest.fixture(scope="module")
def idle(classes, loops, tmp_path_factory):
    """The class graded with one job on the idle machine, and the loops."""
    out = tmp_path_factory.mktemp("idle")
    done = run_grader("grade", *sorted(classes[0].iterdir()), "--out", out / "class", "--jobs", 1)
    assert done.returncode == 0, done.stderr[-2000:]
    return out / "class", grade_loops(loops, out / "loops")


@pytest.fixture(scope="module")
def loaded(classes, loops, idle, tmp_path_factory):
    """The class graded with two jobs beside another grading, on the busy machine; the loops."""
    import subprocess

    out = tmp_path_factory.mktemp("loaded")
    with busy_machine(LOAD, LOAD_SECONDS):
        other = subprocess.Popen(
            grade_command(classes[1], out / "other", jobs=2),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            done = run_grader(
                "grade", *sorted(classes[0].iterdir()), "--out", out / "class", "--jobs", 2
            )
            loops_graded = grade_loops(loops, out / "loops")
        finally:
            other.wait()
    assert done.returncode == 0, done.stderr[-2000:]
    return out / "class", out / "other", loops_graded, done.stderr


def full_marks(out):
    rows = read_grades(out)
    return [s for s, row in rows.items() if row["score"] == row["max_score"]], rows


def test_every_correct_copy_gets_full_marks_on_a_busy_machine(loaded):
    for out in loaded[:2]:
        full, rows = full_marks(out)
        assert len(full) == len(rows) == COPIES, {s: r["status"] for s, r in rows.items()}


def test_a_class_graded_idle_with_one_job_and_loaded_with_two_gets_the_same_grades_file(
    idle, loaded
):
    assert (idle[0] / "grades.csv").read_bytes() == (loaded[0] / "grades.csv").read_bytes()


def test_an_endless_loop_and_a_cpu_hog_still_time_out_on_a_busy_machine(loaded):
    rows, _took = loaded[2]
    assert {s: r["status"] for s, r in rows.items()} == {
        "infinite-loop": "timeout",
        "cpu-hog": "timeout",
    }
    assert rows["infinite-loop"]["score"] == "0.00"


def test_an_endless_loop_is_stopped_by_its_processor_time_idle_and_loaded(idle, loaded):
    for out, (_rows, took) in ((idle[0].parent, idle[1]), (loaded[0].parent, loaded[2])):
        results = json.loads((out / "loops" / "infinite-loop" / "results.json").read_text())
        # Its processor-time limit ended it, not the wall clock: the student reads what it used.
        assert f"processor time; the limit is {LOOP_TIMEOUT:g} seconds" in results["output"]
        # Waiting its turn for a processor (here, or on a machine a developer is using) is never
        # charged, and never lasts past the wall clock's end: twice (the time-out is confirmed),
        # plus start-up, which the loaded machine stretches (CI saw 99.7 s with a developer's
        # tests running beside it).
        print(f"loops stopped in {took:.1f} s on the wall clock")
        assert took < 2 * 30 + 60
