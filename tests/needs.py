"""What a test needs, declared by its module and enforced while it runs.

Every test module says what it needs in `pytestmark` (`pytestmark = []`: pure Python). While a
test runs, every process this pytest process starts goes through `subprocess.Popen`, and every
cgroup it makes through `WorkerGroup.create`: the guard reads what each one is, and a test whose
marks do not include that need fails, with the line to add. The marks are in pyproject.toml.
"""

import os
import shlex
import subprocess
from pathlib import Path

import pytest

# A Slurm cluster's daemons and commands, and munge, which authenticates them to each other.
SLURM_PROGRAMS = ("munged", "mungekey", "slurmctld", "slurmd", "slurmstepd")
SLURM_PROGRAMS += ("sbatch", "srun", "salloc", "squeue", "scontrol", "scancel", "sinfo", "sacct")
# Programs by what running them needs.
PROGRAMS = {
    "bwrap": "bwrap",
    "run_autograder": "bwrap",
    "nbgrader": "nbgrader",
    "chromium": "browser",
    "chromedriver": "browser",
    "jupyter-lab": "kernel",
    "jupyter-execute": "kernel",
    "vng": "vm",
    "virtme-ng": "vm",
    **dict.fromkeys(SLURM_PROGRAMS, "slurm"),
}
# Python modules (run with -m, or imported by a -c program) by what running them needs.
MODULES = {
    "ipykernel_launcher": "kernel",
    "ipykernel": "kernel",
    "jupyterlab": "kernel",
    "nbgrader": "nbgrader",
    "grader.job": "bwrap",
    "grader.integrations.gradescope_run": "bwrap",
    "grader.sandbox.inside.forkserver": "bwrap",
    "grader.sandbox.server": "bwrap",
}
# `python -m grader COMMAND`: the commands that start grading jobs (grader/batch/dispatch.py).
GRADING_COMMANDS = {"grade", "selfcheck"}
# `python -m grader.job --list` only lists the hidden tests: it starts no fork server.
LISTING = "--list"
NEEDS = frozenset({*PROGRAMS.values(), *MODULES.values()})


class UndeclaredNeedError(RuntimeError):
    """A test started something its module's pytestmark does not declare."""


def _words(args: object) -> list[str]:
    """Return the words of a command, splitting any that hold a shell line or a program."""
    if isinstance(args, str | bytes | os.PathLike):
        args = [args]
    words: list[str] = []
    for arg in args:
        text = os.fsdecode(arg)
        try:
            words += shlex.split(text.replace(";", " ; "))
        except ValueError:
            words += text.split()
    return words


def needs_of_command(args: object) -> set[str]:
    """Return the needs of starting `args` (Popen's first argument)."""
    words = _words(args)
    found = set()
    for index, word in enumerate(words):
        name = Path(word.rpartition("$(")[2]).name  # a shell line's `array=$(sbatch ...)` too
        if name in PROGRAMS:
            found.add(PROGRAMS[name])
        elif name.startswith("qemu-system"):
            found.add("vm")
        following = words[index + 1] if index + 1 < len(words) else ""
        listing = following == "grader.job" and LISTING in words
        if word in ("-m", "from", "import") and following in MODULES and not listing:
            found.add(MODULES[following])
        if word == "nbconvert" and "--execute" in words:
            found.add("kernel")
        if word == "-m" and following == "grader":
            command = words[index + 2] if index + 2 < len(words) else ""
            if command in GRADING_COMMANDS:
                found.add("bwrap")
    return found


class NeedsGuard:
    """The pytest plugin holding the running test and failing it on an undeclared need."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.item: pytest.Item | None = None
        self.undeclared: dict[str, list[str]] = {}  # test id -> what it started undeclared
        self.patches = pytest.MonkeyPatch()

    def install(self) -> None:
        """Put the guard in front of starting a process and making a cgroup."""
        start = subprocess.Popen._execute_child
        guard = self

        def guarded_start(popen, args, *rest, **options):
            for need in sorted(needs_of_command(args)):
                guard.check(need, " ".join(_words(args))[:200])
            return start(popen, args, *rest, **options)

        self.patches.setattr(subprocess.Popen, "_execute_child", guarded_start)
        try:
            from grader.sandbox.cgroups import WorkerGroup
        except ImportError:  # a project without it: nothing to guard there
            return
        create = WorkerGroup.create.__func__

        def guarded_create(cls, name, *rest, **options):
            guard.check("bwrap", f"a worker's cgroup {name!r}")
            return create(cls, name, *rest, **options)

        self.patches.setattr(WorkerGroup, "create", classmethod(guarded_create))

    def check(self, need: str, what: str) -> None:
        """Raise (and remember) if the running test does not declare `need`."""
        if os.getpid() != self.pid:  # a child forked from the test: its parent is checked
            return
        item = self.item
        if item is not None and item.get_closest_marker(need) is not None:
            return
        where = item.nodeid if item is not None else "collection"
        message = (
            f"{where} starts {what}, which needs `{need}`, but its module does not declare it: "
            f"add pytest.mark.{need} to the module's pytestmark"
        )
        self.undeclared.setdefault(where, []).append(message)
        raise UndeclaredNeedError(message)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item):
        self.item = item
        yield
        self.item = None

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        """Fail a test whose undeclared start the code under test caught and went on."""
        outcome = yield
        report = outcome.get_result()
        messages = self.undeclared.pop(item.nodeid, [])
        if messages and report.passed:
            report.outcome = "failed"
            report.longrepr = "\n".join(messages)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, items):
        """Refuse a test module that does not say what it needs, and an unknown need."""
        modules = {item.module for item in items if getattr(item, "module", None) is not None}
        silent = sorted(
            os.path.relpath(module.__file__)
            for module in modules
            if "pytestmark" not in vars(module)
        )
        if silent:
            raise pytest.UsageError(
                "test modules must declare what they need, `pytestmark = []` if nothing "
                f"(markers in pyproject.toml): {', '.join(silent)}"
            )

    def pytest_unconfigure(self) -> None:
        self.patches.undo()


def install(config: pytest.Config) -> NeedsGuard:
    """Register the guard with pytest and put it in front of what tests start."""
    guard = NeedsGuard()
    guard.install()
    config.pluginmanager.register(guard, "needs-guard")
    return guard
