"""Cheap for the student, cheap for the grader: what a worker sends costs the trusted side little.

Each attack in BOUNDED sends the trusted side something that once cost it gigabytes or minutes:
an id whose repr is 400 million characters, an int whose repr raises, thousands of keys that
compare through Python code once decoded, 20 MB of arguments on every tool call. One run
grades them with `--jobs 1`, each followed in the same job by a copy of the reference, then
their honest twins. No attack earns more than its twin in any category, the job's own memory
stays under JOB_PEAK_MIB (before these bounds, 3.9 GB), and each reference after an attack
is graded, in full, within REFERENCE_SECONDS.
"""

import json
import shutil
import subprocess
import sys
import threading

import psutil
import pytest
from grader_cli import read_grades

from grader.model import CATEGORIES
from grader.paths import PROJECT_ROOT, SUBMISSIONS
from grader.selfcheck.expectations import find_fixture

pytestmark = [pytest.mark.bwrap]

BOUNDED = (
    "repr-bomb-id",
    "id-repr-raises",
    "colliding-trace-keys",
    "piles-up-arguments",
    "unreadable-near-budget",
)
# An honest job holds about 100 MiB here (Python, the hidden tests, a submission's
# observations); what a submission may make it hold beyond that is Limits.held_mb, 32 MiB as
# estimated, whose objects take up to about three times that.
JOB_PEAK_MIB = 250
# The reference alone takes a few tenths of a second; an attack's work must not spill into it.
REFERENCE_SECONDS = 3.0


def job_high_water_mark(process: psutil.Process) -> int:
    """Return the highest peak resident size (VmHWM, in KiB) of any grading job below `process`."""
    peak = 0
    try:
        children = process.children(recursive=True)
    except psutil.Error:  # the grading command has just ended: its jobs with it
        return peak
    for child in children:
        try:
            if "grader.job" not in " ".join(child.cmdline()):
                continue
            with open(f"/proc/{child.pid}/status", encoding="ascii") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
        except (psutil.Error, OSError):
            continue
    return peak


@pytest.fixture(scope="module")
def bounded_run(tmp_path_factory):
    """Grade every attack, a reference after each, then the twins; watch the job's memory."""
    root = tmp_path_factory.mktemp("bounded")
    folder = root / "class"
    folder.mkdir()
    reference = SUBMISSIONS / "correct" / "reference.py"
    for number, name in enumerate(BOUNDED, start=1):
        shutil.copy(find_fixture("adversarial", name), folder / f"{number}-attack-{name}.py")
        shutil.copy(reference, folder / f"{number}-reference.py")
        shutil.copy(find_fixture("twins", name), folder / f"twin-{name}.py")
    out = root / "out"
    command = [sys.executable, "-m", "grader", "grade", str(folder), "--out", str(out)]
    process = psutil.Popen([*command, "--jobs", "1"], cwd=PROJECT_ROOT, stdout=subprocess.DEVNULL)
    peaks = [0]
    done = threading.Event()

    def watch():
        while not done.wait(0.02):
            peaks.append(job_high_water_mark(process))

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        assert process.wait(timeout=600) == 0
    finally:
        done.set()
        watcher.join()
    timings = json.loads((out / "timings.json").read_text(encoding="utf-8"))
    return read_grades(out), timings, max(peaks) / 1024


@pytest.mark.parametrize("name", BOUNDED)
def test_no_attack_on_the_trusted_side_earns_more_than_its_twin(bounded_run, name):
    grades, _, _ = bounded_run
    number = BOUNDED.index(name) + 1
    attack, twin = grades[f"{number}-attack-{name}"], grades[f"twin-{name}"]
    assert twin["status"] == "completed"
    for category in CATEGORIES:
        assert float(attack[category]) <= float(twin[category]), category


def test_an_int_whose_repr_raises_costs_its_case_not_a_grader_failure(bounded_run):
    grades, _, _ = bounded_run
    attack = grades[f"{BOUNDED.index('id-repr-raises') + 1}-attack-id-repr-raises"]
    assert attack["status"] == "completed"
    assert float(attack["score"]) == float(grades["twin-id-repr-raises"]["score"])


def test_the_job_holds_little_whatever_the_attacks_send(bounded_run):
    _, _, peak_mib = bounded_run
    assert 0 < peak_mib < JOB_PEAK_MIB


@pytest.mark.parametrize("number", range(1, len(BOUNDED) + 1))
def test_the_reference_after_each_attack_is_graded_in_full_and_soon(bounded_run, number):
    grades, timings, _ = bounded_run
    reference = grades[f"{number}-reference"]
    assert reference["status"] == "completed"
    assert float(reference["score"]) == float(reference["max_score"])
    attack = f"{number}-attack-{BOUNDED[number - 1]}"
    assert timings[f"{number}-reference"] - timings[attack] < REFERENCE_SECONDS
