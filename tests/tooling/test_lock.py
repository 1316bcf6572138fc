"""`make lock` resolves once for every group, then writes each group's closure from that lock."""

import subprocess

import pytest

from grader.install.requirements import LOCK, LOCKED_GROUPS
from tooling import lock

pytestmark = []


@pytest.fixture
def commands(monkeypatch):
    """Record the uv commands `lock` runs, with their standard input, instead of running them."""
    ran = []

    def record(command, *, input, **_):
        ran.append((command, input))
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(lock.subprocess, "run", record)
    lock.lock()
    return ran


def output_of(command):
    return command[command.index("-o") + 1]


def test_the_lock_is_resolved_first_for_every_group_every_platform_and_python_3_11(commands):
    first, _ = commands[0]
    assert first[1:5] == ["-m", "uv", "pip", "compile"]
    assert output_of(first) == str(LOCK)
    assert {"pyproject.toml", "--all-extras", "--universal"} <= set(first)
    assert first[first.index("--python-version") + 1].startswith("3.11")
    assert "--upgrade" not in first  # the lock's own pins are kept


def test_each_group_file_is_constrained_by_the_lock(commands):
    groups = commands[1:]
    assert [output_of(command).rsplit("/", 1)[1] for command, _ in groups] == [
        f"{group}.txt" for group in LOCKED_GROUPS
    ]
    for command, _ in groups:
        assert command[command.index("--constraint") + 1] == "requirements/lock.txt"
        assert "--all-extras" not in command


def test_an_extra_is_resolved_alone_without_the_graders_own_dependencies(commands):
    by_group = {
        output_of(command).rsplit("/", 1)[1]: (command, stdin) for command, stdin in commands
    }
    command, stdin = by_group["course.txt"]
    assert "-" in command and "pyproject.toml" not in command
    assert stdin.splitlines() == lock.extra_requirements("course")
    assert "jinja2" not in stdin.lower()
    grader, _ = by_group["grader.txt"]
    assert "pyproject.toml" in grader and "--extra" not in grader
    dev, _ = by_group["dev.txt"]
    assert dev[dev.index("--extra") + 1] == "dev"
