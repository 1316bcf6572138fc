"""Run a grader as a subprocess and measure its wall time and the peak memory of its tree."""

import contextlib
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

PROJECT = Path(__file__).resolve().parent.parent
SAMPLE_SECONDS = 0.05


@dataclass(frozen=True)
class Measurement:
    """Wall-clock seconds and peak resident memory (MiB) of one command's whole process tree."""

    seconds: float
    peak_mib: float
    out_dir: Path = None
    course_root: Path = None


def tree_rss(process):
    """Return the resident memory of `process` and all its descendants, in bytes."""
    total = 0
    for member in [process, *process.children(recursive=True)]:
        # A process may end between listing and reading; it then holds no memory.
        with contextlib.suppress(psutil.Error):
            total += member.memory_info().rss
    return total


def measured(command, cwd):
    """Run `command` to completion; return (seconds, peak MiB); raise if it fails."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    started = time.monotonic()
    child = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    peak = [0]
    watcher = psutil.Process(child.pid)

    def sample():
        while child.poll() is None:
            try:
                peak[0] = max(peak[0], tree_rss(watcher))
            except psutil.Error:
                return
            time.sleep(SAMPLE_SECONDS)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    _, stderr = child.communicate()
    seconds = time.monotonic() - started
    thread.join()
    if child.returncode != 0:
        tail = stderr.decode(errors="replace").strip().splitlines()[-3:]
        raise RuntimeError(f"{command[:4]} exited {child.returncode}: {' | '.join(tail)}")
    return seconds, peak[0] / 2**20


def run_grader(class_root, out_dir, jobs):
    """Grade the class's submitted/ tree with `python -m grader grade`."""
    command = [sys.executable, "-m", "grader", "grade", str(Path(class_root) / "submitted")]
    command += ["--out", str(out_dir), "--jobs", str(jobs)]
    seconds, peak = measured(command, PROJECT)
    return Measurement(seconds, peak, out_dir=Path(out_dir))


def run_nbgrader(class_root, students):
    """Autograde `students` with nbgrader in a fresh course folder; only autograde is timed."""
    course_root = Path(class_root) / "nbgrader-course"
    course_root.mkdir()
    shutil.copyfile(PROJECT / "nbgrader_config.py", course_root / "nbgrader_config.py")
    shutil.copytree(PROJECT / "solutions", course_root / "solutions")
    for student in students:
        shutil.copytree(
            Path(class_root) / "submitted" / student, course_root / "submitted" / student
        )
    nbgrader = [sys.executable, "-m", "nbgrader"]
    measured([*nbgrader, "generate_assignment", "bounded_results", "--force"], course_root)
    seconds, peak = measured([*nbgrader, "autograde", "bounded_results", "--create"], course_root)
    return Measurement(seconds, peak, course_root=course_root)
