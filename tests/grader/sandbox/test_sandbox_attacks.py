"""Attacks on the worker: no cheat earns more than its honest twin, and none harms a neighbour.

Each fixture in fixtures/submissions/adversarial/ named in CHEATS is a buggy submission plus a
cheat (forged handler records, frame walking, gc scanning, hooks, signals, threads, a dict key
whose `__eq__` runs inside the guard, forged replies, a keyring or a shared folder carrying an
answer to another student, signals to every process in reach, resources left behind); its twin
in fixtures/submissions/twins/ is the same code with only the cheat removed. One batch grades
every cheat, every twin and a reference copy after each of them in the same job, so a cheat
that works shows as points over its twin, and one that harms others as a reference copy losing
points or as something left on the machine. As root each submission has a user id of its own;
without root (tests/hosts/) every worker has the grader's, and the same batch must hold.
"""

import contextlib
import csv
import glob
import os
import shutil
import subprocess
import threading
import time
from dataclasses import replace
from pathlib import Path

import psutil
import pytest
from grader_cli import run_grader
from host_expectations import only_host_walls, slower

from grader.batch.run import RunSettings, hidden_tests, run_submissions
from grader.model import CATEGORIES, TEST_STATUSES, CodeUnit, Limits, Submission
from grader.paths import PROJECT_ROOT
from grader.score import score
from grader.selfcheck.expectations import find_fixture

pytestmark = [pytest.mark.bwrap, pytest.mark.slow]

PROJECT = PROJECT_ROOT
FIXTURES = PROJECT / "fixtures/submissions"
REFERENCE = (FIXTURES / "correct/reference.py").read_text(encoding="utf-8")
# Small limits, as in test_sandbox_adversarial.py: filling memory fits within a test's time.
SETTINGS = RunSettings(
    jobs=2,
    limits=Limits(timeout=slower(3.0), test_timeout=slower(1.0), output_limit=4096, memory_mb=256),
)
# Workers run as user ids from here up (grader/sandbox/containment.py, UID_BASE).
WORKER_UID_BASE = 200_000
SHARED_MEMORY = "/dev/shm"
# Each cheat runs in one job and its twin in the other (see `batch_order`), so the cheats run
# in this order, one after another, as do the twins: the keyring carrier runs just before its
# reader, and the attacks that may break a job come last, where they can spoil no comparison.
CHEATS = (
    "keyring-carries-data",
    "keyring-reader",
    # The same through the files a worker might share with the next: /tmp, /dev/shm, home.
    "leaves-answer-in-shared-folders",
    "looks-for-answer-in-shared-folders",
    "forges-handler-records",
    "walks-frames-to-observer",
    "patches-main-module",
    "scans-gc-objects",
    "profile-hook-edits-records",
    "alarm-handler-edits-records",
    "thread-edits-after-return",
    "finalizer-edits-records",
    "patches-builtin-copies",
    "answers-reply-channel",
    # Beyond the first list, found against the sealed worker: the worker runs the student's
    # stream flush after invoke_tool returns, and cannot see arguments restored before it does.
    "overrides-stream-flush",
    "restores-request-before-return",
    # Against the step-aside rule of category isolation: raise where a test would catch you.
    "raises-to-dodge-ownership",
    # Found while profiling the guard: a dict lookup it made ran a student key's __eq__.
    "key-eq-rewrites-observations",
    "fills-shared-memory",
    "fills-disk",
    "hogs-cpu-after-return",
    "deep-directory-tree",
    # Signals to every process the worker's user may reach: without root, the grader's own.
    "kills-every-process-it-may",
)
# The cheats whose walls differ from host to host (a user id per submission, bubblewrap's
# namespaces, Landlock, cgroups): all a slow host grades (tests/host_expectations.py).
HOST_WALLS = (
    "keyring-carries-data",
    "keyring-reader",
    "leaves-answer-in-shared-folders",
    "looks-for-answer-in-shared-folders",
    "fills-shared-memory",
    "kills-every-process-it-may",
)
GRADED = HOST_WALLS if only_host_walls() else CHEATS
# Each reader of what a carrier left, graded alone first: what it finds when nobody left it.
READERS = ("keyring-reader", "looks-for-answer-in-shared-folders")
# The test status at least one of a fixture's tests must end with: reaching into the grader's
# side of the worker (its frames, objects, hooks, signals, threads or pipes) is forbidden.
EXPECTED_LABEL = {
    "walks-frames-to-observer": "forbidden",
    "scans-gc-objects": "forbidden",
    "profile-hook-edits-records": "forbidden",
    "alarm-handler-edits-records": "forbidden",
    "thread-edits-after-return": "forbidden",
    "answers-reply-channel": "forbidden",
}


def single_file(name, source):
    return Submission(name, f"{name}.py", "python", (CodeUnit(name, f"{name}.py", source),))


def fixture(folder, name):
    return single_file(
        name if folder == "adversarial" else f"twin-{name}",
        find_fixture(folder, name).read_text(encoding="utf-8"),
    )


def batch_order(names):
    """Each cheat and its twin, then two reference copies, and so on.

    With two jobs dealt in turn, one job grades every cheat, each followed by a reference copy
    (the neighbour most likely to feel what it left behind), and the other every twin, each
    followed by a reference copy too.
    """
    ordered = []
    for number, name in enumerate(names):
        ordered += [fixture("adversarial", name), fixture("twins", name)]
        ordered += [single_file(f"reference-{2 * number + n}", REFERENCE) for n in range(2)]
    return ordered


def grade(submissions, settings):
    tests = hidden_tests()
    return {r.submission.student: score(r, tests) for r in run_submissions(submissions, settings)}


FORK_SERVER = "grader.sandbox.inside.forkserver"


class Workers:
    """Collect this process's workers, and the user ids they ran as, while a batch runs.

    Only this test's workers count: other grading runs on the machine have workers of their
    own, which these tests must neither blame nor clean up. Every worker, and anything it
    forks, stays a descendant of its job while the job lives (jobs adopt orphans), so sampling
    the descendants of this process finds them all. As root each submission has a user id of
    its own, from WORKER_UID_BASE up; without root workers run as this test's own user, and a
    worker is known by its fork server's command line, which a fork keeps.
    """

    def __init__(self):
        self.uids = set()
        self.seen = set()  # (pid, start time) of each worker seen
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.before = {folder: set(own_entries(folder)) for folder in ("/tmp", SHARED_MEMORY)}

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *_exc):
        self.done.set()
        self.thread.join()

    def _sample(self):
        me = psutil.Process()
        while not self.done.wait(0.02):
            with contextlib.suppress(psutil.Error):
                for child in me.children(recursive=True):
                    with contextlib.suppress(psutil.Error):
                        uid = max(child.uids())
                        if uid >= WORKER_UID_BASE:
                            self.uids.add(uid)
                        if uid >= WORKER_UID_BASE or FORK_SERVER in " ".join(child.cmdline()):
                            self.seen.add((child.pid, child.create_time()))

    def alive(self):
        """Every worker process still running (zombies included), and any of a worker user."""
        found = {p.pid: p for p in processes_of(self.uids)}
        for pid, started in self.seen:
            with contextlib.suppress(psutil.Error):
                process = psutil.Process(pid)
                if process.create_time() == started and process.pid not in found:
                    found[pid] = process
        return list(found.values())

    def files(self, folder):
        """What a worker left directly in `folder`: its user's entries, or ours made since."""
        if self.uids:
            return entries_of(self.uids, folder)
        return sorted(set(own_entries(folder)) - self.before[folder])


def own_entries(folder):
    """Entries of `folder` that this process's user owns, when the grader is not root."""
    return [] if os.geteuid() == 0 else entries_of({os.geteuid()}, folder)


def processes_of(uids):
    """Every process running as one of `uids`, zombies included."""
    found = []
    for process in psutil.process_iter(["uids", "status", "cmdline"]):
        if process.info["uids"] is not None and set(process.info["uids"]) & uids:
            found.append(process)
    return found


def entries_of(uids, folder):
    """The entries directly in `folder` that one of `uids` owns."""
    found = []
    with os.scandir(folder) as entries:
        for entry in entries:
            with contextlib.suppress(FileNotFoundError):
                if entry.stat(follow_symlinks=False).st_uid in uids:
                    found.append(entry.path)
    return sorted(found)


def grader_folders():
    return set(glob.glob("/tmp/grader-*"))


def left_grader_folders(before, workers):
    """The grader-* folders in /tmp new since `before` that this batch left.

    A worker's folder is owned by its user; the job's and the run's folders are the grader's,
    and count only when no other grading run, one these tests did not start, is alive to own
    them.
    """
    mine = {p.pid for p in psutil.Process().children(recursive=True)}
    others = any(
        "grader.job" in " ".join(p.info["cmdline"] or ()) and p.pid not in mine
        for p in psutil.process_iter(["cmdline"])
    )
    found = []
    for path in grader_folders() - before:
        with contextlib.suppress(FileNotFoundError):
            if os.lstat(path).st_uid in workers.uids or not others:
                found.append(path)
    return sorted(found)


def shared_memory_used():
    return shutil.disk_usage(SHARED_MEMORY).used


def settle(check, seconds=3.0):
    """Return `check()` once it is empty, or its last value after `seconds`."""
    deadline = time.monotonic() + seconds
    while (found := check()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def clean_up(workers):
    """Remove what this batch's workers left behind, so a failing run does not litter."""
    for process in workers.alive():
        with contextlib.suppress(psutil.Error):
            process.kill()
    for folder in ("/tmp", SHARED_MEMORY):
        for path in workers.files(folder):
            # `rm` copes with trees deeper than any recursive Python clean-up.
            subprocess.run(["rm", "-rf", "--one-file-system", path], check=False)


@pytest.fixture(scope="module")
def readers_alone():
    """The readers graded on their own, before the batch: nobody left them anything."""
    with Workers() as workers:
        try:
            readers = [fixture("adversarial", name) for name in READERS]
            return grade(readers, replace(SETTINGS, jobs=1))
        finally:
            clean_up(workers)


@pytest.fixture(scope="module")
def batch(readers_alone):
    """One batch of every cheat, every twin and the reference copies; what it left behind."""
    folders_before = grader_folders()
    shared_before = shared_memory_used()
    with Workers() as workers:
        grades = grade(batch_order(GRADED), SETTINGS)
    try:
        left = {
            "workers": workers.seen,
            "processes": [
                f"{p.pid} uid {max(p.uids())} {p.status()} {p.cmdline()}"
                for p in settle(workers.alive)
            ],
            "grader_folders": settle(lambda: left_grader_folders(folders_before, workers)),
            "shared_memory_growth": shared_memory_used() - shared_before,
            "files": {folder: workers.files(folder) for folder in ("/tmp", SHARED_MEMORY)},
        }
        yield {"grades": grades, "left": left}
    finally:
        clean_up(workers)


def points(grade):
    return {c.category: c.points for c in grade.categories}


def statuses(grade):
    return {outcome.status for outcome in grade.run.outcomes} | {grade.run.status}


@pytest.mark.parametrize("name", GRADED)
def test_a_cheat_earns_no_more_than_its_honest_twin_in_any_category(batch, name):
    cheat = points(batch["grades"][name])
    twin = points(batch["grades"][f"twin-{name}"])
    gained = {c: (twin[c], cheat[c]) for c in CATEGORIES if cheat[c] > twin[c]}
    assert not gained, f"{name} gained points (twin, cheat): {gained}"


def test_every_reference_copy_between_the_cheats_earns_full_marks(batch):
    references = {n: g for n, g in batch["grades"].items() if n.startswith("reference-")}
    assert len(references) == 2 * len(GRADED)
    harmed = {
        name: (grade.run.status, grade.score, grade.run.reason)
        for name, grade in references.items()
        if grade.run.status != "completed" or grade.score != grade.max_score
    }
    assert not harmed


@pytest.mark.parametrize("name", READERS)
def test_a_reader_scores_what_it_scores_when_graded_alone(batch, readers_alone, name):
    assert points(batch["grades"][name]) == points(readers_alone[name])


def test_no_worker_process_outlives_the_batch(batch):
    assert batch["left"]["workers"], "no worker was seen: the sampling is broken"
    assert batch["left"]["processes"] == []


def test_no_grader_folder_of_the_batch_remains_in_tmp(batch):
    assert batch["left"]["grader_folders"] == []


@pytest.mark.parametrize("folder", ["/tmp", SHARED_MEMORY])
def test_no_file_of_a_worker_user_is_left_in(batch, folder):
    # The grader's own folders have a test of their own.
    left = [p for p in batch["left"]["files"][folder] if not Path(p).name.startswith("grader-")]
    assert left == []


def test_shared_memory_is_not_left_fuller_after_the_batch(batch):
    assert batch["left"]["shared_memory_growth"] < 1 << 20


@pytest.mark.xfail(
    "forbidden" not in TEST_STATUSES,
    reason="the old sandbox has no 'forbidden' test status (grader.model.TEST_STATUSES)",
    strict=True,
)
@pytest.mark.parametrize(("name", "label"), sorted(EXPECTED_LABEL.items()))
def test_reaching_into_the_grader_gets_its_label(batch, name, label):
    assert label in statuses(batch["grades"][name])


def test_a_submission_named_grades_csv_does_not_overwrite_the_grades_file(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copyfile(FIXTURES / "id-collision/grades.csv.py", folder / "grades.csv.py")
    shutil.copyfile(FIXTURES / "correct/reference.py", folder / "reference.py")
    out = tmp_path / "out"
    # The reference's own time grows with the host's slowness (under QEMU's emulation, the
    # generated scenarios alone take most of the default limit), as every limit here does.
    limit = str(slower(Limits.timeout))
    completed = run_grader("grade", folder, "--out", out, "--timeout", limit, timeout=300)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    grades_file = out / "grades.csv"
    assert grades_file.is_file()
    with grades_file.open(encoding="utf-8", newline="") as stream:
        rows = {row["student"]: row for row in csv.DictReader(stream)}
    # The student is listed, graded or told why not; the class's file is still the class's.
    assert set(rows) == {"grades.csv", "reference"}
    assert rows["reference"]["score"] == rows["reference"]["max_score"]
