"""Run a command as a subprocess and measure its wall time, whole-tree CPU and peak memory.

Processor time is read from a cgroup of the command's own (cpuacct), which counts every process
the command starts, at any depth: the grader's jobs, its fork servers and the workers they fork
inside bubblewrap's process namespace, whose time never reaches `wait()` in this process. Where
no cgroup can be made, the time `wait()` reports for the command's children is used instead and
`cpu_complete` says it misses what was reaped inside a namespace.
"""

import contextlib
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

from grader.paths import PROJECT_ROOT
from grader.sandbox import cgroups

PROJECT = PROJECT_ROOT
SAMPLE_SECONDS = 0.05


@dataclass(frozen=True)
class Measurement:
    """One run of a command: wall and CPU seconds, peak memory of its tree and of its own."""

    seconds: float
    cpu_seconds: float
    peak_mib: float  # the whole process tree, sampled
    main_peak_mib: float  # the command's own process (the grader's parent), sampled
    cpu_complete: bool = True
    out_dir: Path | None = None
    course_root: Path | None = None


def tree_rss(process: psutil.Process) -> int:
    """Return the resident memory of `process` and all its descendants, in bytes."""
    total = 0
    for member in [process, *process.children(recursive=True)]:
        # A process may end between listing and reading; it then holds no memory.
        with contextlib.suppress(psutil.Error):
            total += member.memory_info().rss
    return total


class _Sampler:
    """Sample the memory of a running command's tree until it ends."""

    def __init__(self, child: subprocess.Popen[bytes]) -> None:
        self.child = child
        self.peak = 0
        self.main_peak = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            watched = psutil.Process(self.child.pid)
        except psutil.Error:
            return
        while self.child.poll() is None:
            try:
                self.peak = max(self.peak, tree_rss(watched))
                self.main_peak = max(self.main_peak, watched.memory_info().rss)
            except psutil.Error:
                return
            time.sleep(SAMPLE_SECONDS)


def measured(
    command: Sequence[str],
    cwd: str | Path,
    env: Mapping[str, str] | None = None,
    memory: bool = True,
) -> Measurement:
    """Run `command` to completion; return its Measurement; raise if it fails.

    Without `memory`, nothing samples the command's memory (its peaks read 0): the sampling
    walks the whole process tree 20 times a second, on the processors the command runs on, which
    a class's run hardly notices and a run of a third of a second does.
    """
    env = dict(env or os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}:{env['PATH']}"
    group = cgroups.WorkerGroup.create(f"bench-{uuid.uuid4().hex[:12]}", 1 << 40, 1 << 20)
    counted = group is not None and group.counts_cpu
    before = os.times()
    started = time.monotonic()
    child = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=None if group is None else group.attach_self,
    )
    sampler = _Sampler(child) if memory else None
    _, stderr = child.communicate()
    seconds = time.monotonic() - started
    if sampler is not None:
        sampler.thread.join()
    after = os.times()
    if group is not None and counted:
        cpu = group.cpu_seconds()
    else:
        cpu = (after.children_user - before.children_user) + (
            after.children_system - before.children_system
        )
    if group is not None:
        group.close()
    if child.returncode != 0:
        tail = stderr.decode(errors="replace").strip().splitlines()[-3:]
        raise RuntimeError(f"{command[:4]} exited {child.returncode}: {' | '.join(tail)}")
    mib = 1 << 20
    peaks = (0, 0) if sampler is None else (sampler.peak, sampler.main_peak)
    return Measurement(seconds, cpu, peaks[0] / mib, peaks[1] / mib, counted)


def grade_command(
    tree: str | Path, submissions: Sequence[str | Path], out_dir: str | Path, jobs: int
) -> list[str]:
    """Return the command that grades `submissions` into `out_dir` with the grader in `tree`."""
    python = Path(tree) / ".venv" / "bin" / "python"
    python = python if python.exists() else Path(sys.executable)
    command = [str(python), "-m", "grader", "grade", *map(str, submissions)]
    return [*command, "--out", str(out_dir), "--jobs", str(jobs)]


def run_grader(
    tree: str | Path,
    submissions: Sequence[str | Path],
    out_dir: str | Path,
    jobs: int,
    resume: bool = False,
) -> Measurement:
    """Grade `submissions` with the grader in `tree` (this project, or a baseline's copy).

    `out_dir` is emptied first unless `resume` is set: then its stored results are reused.
    """
    if not resume:
        shutil.rmtree(out_dir, ignore_errors=True)
    found = measured(grade_command(tree, submissions, out_dir, jobs), tree)
    return Measurement(**{**found.__dict__, "out_dir": Path(out_dir)})


def run_nbgrader(class_root: str | Path, students: Sequence[str]) -> Measurement:
    """Autograde `students` with nbgrader in a fresh course folder; only autograde is timed."""
    course_root = Path(class_root) / "nbgrader-course"
    shutil.rmtree(course_root, ignore_errors=True)
    course_root.mkdir()
    shutil.copyfile(PROJECT / "nbgrader_config.py", course_root / "nbgrader_config.py")
    shutil.copytree(PROJECT / "solutions", course_root / "solutions")
    for student in students:
        shutil.copytree(
            Path(class_root) / "submitted" / student, course_root / "submitted" / student
        )
    nbgrader = [sys.executable, "-m", "nbgrader"]
    measured([*nbgrader, "generate_assignment", "bounded_results", "--force"], course_root)
    found = measured([*nbgrader, "autograde", "bounded_results", "--create"], course_root)
    return Measurement(**{**found.__dict__, "course_root": course_root})


KERNEL_CELL = """
import json, sys
import nbformat
from nbclient import NotebookClient
notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
NotebookClient(notebook, kernel_name="python3", timeout=60).execute()
"""


def run_bare_kernel(workdir: str | Path) -> Measurement:
    """Start a Jupyter kernel, run one cell and stop it: what nbgrader pays per notebook."""
    return measured([sys.executable, "-c", KERNEL_CELL], workdir)
