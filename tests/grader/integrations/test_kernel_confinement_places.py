"""The confined kernel sees its Python wherever it is installed, and a refusal leads with the fix.

A course's virtual environment often lives under /tmp, where the kernel has a private /tmp of
its own: bound after the environment, that /tmp hid the kernel's Python, and autograde said that
bubblewrap could not run (it could) and offered first to run student code unconfined. Here the
bubblewrap command is read, not run (tests/nbgrader/test_autograde_from_tmp.py runs it).
"""

from pathlib import Path

import pytest

from grader.integrations import kernel_confinement
from grader.integrations.kernel_confinement import (
    BUBBLEWRAP,
    SANDBOX_DEPS,
    ConfinementUnavailable,
    KernelConfinement,
    confined_command,
    probe_failure,
)
from grader.integrations.kernel_places import KernelPlaces
from grader.integrations.nbgrader_kernel import OPT_OUT, refusal

pytestmark = []

UNDER_TMP = Path("/tmp/course-env")


def bound_at(command, place):
    """Return the index of the option that mounts something at `place`, the last one."""
    found = [
        at
        for at, word in enumerate(command)
        if word in ("--bind", "--ro-bind") and command[at + 2] == str(place)
    ]
    assert found, f"nothing is mounted at {place}"
    return found[-1]


@pytest.fixture
def command_for_tmp_environment(monkeypatch):
    monkeypatch.setattr(kernel_confinement, "kernel_installation", lambda: [UNDER_TMP])
    places = KernelPlaces.make(None, None)
    try:
        yield confined_command(KernelConfinement(BUBBLEWRAP), places, ["python"]), places
    finally:
        places.remove()


def test_an_environment_under_tmp_is_bound_at_its_real_path_on_top_of_the_private_tmp(
    command_for_tmp_environment,
):
    command, places = command_for_tmp_environment
    private_tmp = bound_at(command, "/tmp")
    environment = bound_at(command, UNDER_TMP)
    assert command[private_tmp : private_tmp + 3] == ["--bind", str(places.tmp), "/tmp"]
    assert command[environment : environment + 3] == ["--ro-bind", str(UNDER_TMP), str(UNDER_TMP)]
    assert private_tmp < environment  # a later mount covers an earlier one beneath it


def test_nothing_is_mounted_over_tmp_after_the_environment(command_for_tmp_environment):
    command, _ = command_for_tmp_environment
    later = command[bound_at(command, UNDER_TMP) + 3 :]
    assert "/tmp" not in later


def test_a_python_that_does_not_start_inside_is_named_and_bubblewrap_is_not_blamed():
    for said in (
        f"bwrap: execvp {UNDER_TMP}/bin/python: No such file or directory",
        f"env: '{UNDER_TMP}/bin/python': No such file or directory",
        "ImportError: libpython3.11.so.1.0: cannot open shared object file",
    ):
        obstacle = probe_failure(f"some output\n{said}\n")
        assert obstacle.cause.startswith("the kernel's Python ("), said
        assert said in obstacle.cause
        assert "bubblewrap" not in obstacle.cause
        assert "Run autograde from a Python whose files all lie in" in obstacle.fix


def test_bubblewrap_refusing_a_sandbox_is_said_with_how_to_allow_it():
    obstacle = probe_failure("bwrap: setting up uid map: Permission denied\n")
    assert obstacle.cause == (
        "bubblewrap cannot make the kernel's sandbox here (bwrap: setting up uid map: "
        "Permission denied)"
    )
    assert "namespaces" in obstacle.fix and "as root" in obstacle.fix


def test_the_refusal_names_the_cause_then_the_fix_and_running_unconfined_last():
    line = refusal(ConfinementUnavailable("bubblewrap is not installed", SANDBOX_DEPS))
    assert line.startswith(
        "Autograde stopped before running any student code: bubblewrap is not installed, so "
        "the notebooks' kernels cannot be confined. Install bubblewrap (make sandbox-deps)."
    )
    assert line.index(SANDBOX_DEPS) < line.index(OPT_OUT)
    assert line.endswith(f"c.ConfinedExecute.{OPT_OUT} = True runs it unconfined.)")
    assert "\n" not in line
