"""Grading that requires bubblewrap never falls back: where it cannot run, one line and no grade.

Ubuntu 22.04's bubblewrap (0.6.1) refused the sandbox's options, and the grader quietly graded
without it. Here a stand-in `bwrap` first on the PATH refuses every command as that one did,
and each way of requiring bubblewrap must fail loudly. The last tests hold the sandbox's command
line to the options bubblewrap 0.6 knows (the debootstrap test runs an older one for real).
"""

import json
import subprocess
import tempfile

import pytest
from grader_cli import run_grader
from gradescope_roots import (
    REFERENCE,
    autograder_root,
    build_bundle,
    run_autograder,
    run_selfcheck,
)

from grader.sandbox import containment
from grader.sandbox.runtime import prepare_runtime

pytestmark = []

REFUSING_BWRAP = "#!/bin/sh\necho 'bwrap: Unknown option --size' >&2\nexit 1\n"
# Every option bubblewrap 0.6.1 accepts (its bubblewrap.c, parse_args_recurse), with the number
# of arguments each takes. 0.7.0 added --size, 0.8.0 --disable-userns and
# --assert-userns-disabled, 0.11.0 the overlay options.
OPTIONS_OF_0_6 = {
    **dict.fromkeys(
        [
            "--unshare-all",
            "--share-net",
            "--unshare-user",
            "--unshare-user-try",
            "--unshare-ipc",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-uts",
            "--unshare-cgroup",
            "--unshare-cgroup-try",
            "--clearenv",
            "--die-with-parent",
            "--as-pid-1",
            "--new-session",
        ],
        0,
    ),
    **dict.fromkeys(
        [
            "--args",
            "--userns",
            "--userns2",
            "--pidns",
            "--chdir",
            "--unsetenv",
            "--uid",
            "--gid",
            "--hostname",
            "--remount-ro",
            "--proc",
            "--dev",
            "--tmpfs",
            "--mqueue",
            "--dir",
            "--perms",
            "--exec-label",
            "--file-label",
            "--seccomp",
            "--add-seccomp-fd",
            "--info-fd",
            "--json-status-fd",
            "--block-fd",
            "--userns-block-fd",
            "--sync-fd",
            "--lock-file",
            "--cap-add",
            "--cap-drop",
        ],
        1,
    ),
    **dict.fromkeys(
        [
            "--bind",
            "--bind-try",
            "--ro-bind",
            "--ro-bind-try",
            "--dev-bind",
            "--dev-bind-try",
            "--symlink",
            "--setenv",
            "--file",
            "--bind-data",
            "--ro-bind-data",
            "--chmod",
        ],
        2,
    ),
}
# In 0.6, --perms must come right before one of these (0.7 let it precede --tmpfs's --size).
TAKE_PERMS_IN_0_6 = {"--bind-data", "--dir", "--file", "--ro-bind-data", "--tmpfs"}


@pytest.fixture
def refusing_bwrap(tmp_path, monkeypatch):
    """A folder whose `bwrap` refuses everything, first on this process's PATH; return its PATH."""
    folder = tmp_path / "old-bubblewrap"
    folder.mkdir()
    (folder / "bwrap").write_text(REFUSING_BWRAP, encoding="utf-8")
    (folder / "bwrap").chmod(0o755)
    path = f"{folder}:/usr/bin:/bin"
    monkeypatch.setenv("PATH", path)
    return path


def choose(wanted):
    with tempfile.TemporaryDirectory() as folder:
        return containment.choose_isolation(prepare_runtime(folder), wanted)


@pytest.mark.bwrap
def test_required_bubblewrap_that_cannot_run_is_an_error_not_a_fallback(refusing_bwrap):
    assert choose("auto").mode == "process"  # what happened on Ubuntu 22.04, silently
    with pytest.raises(RuntimeError, match="bubblewrap is required but it cannot run here"):
        choose("bubblewrap")


def test_required_bubblewrap_and_a_forced_fallback_contradict_each_other(monkeypatch):
    monkeypatch.setenv(containment.ISOLATION_VARIABLE, "process")
    with pytest.raises(RuntimeError, match="GRADER_ISOLATION=process is set"):
        choose("bubblewrap")


@pytest.mark.bwrap
def test_required_bubblewrap_is_used_where_it_runs():
    assert choose("bubblewrap").mode == "bubblewrap"


@pytest.mark.bwrap
def test_grade_requiring_bubblewrap_fails_in_one_line_and_grades_nobody(refusing_bwrap, tmp_path):
    out = tmp_path / "out"
    command = ["grade", str(REFERENCE), "--out", str(out), "--isolation", "bubblewrap"]
    completed = run_grader(*command, timeout=120)
    assert completed.returncode == 2
    assert completed.stderr.count("\n") == 1
    assert completed.stderr.startswith("grader: error: bubblewrap is required")
    assert not (tmp_path / "out" / "grades.csv").exists()


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return build_bundle(tmp_path_factory.mktemp("bundle"))


@pytest.mark.bwrap
def test_run_autograder_without_bubblewrap_fails_loudly_and_writes_no_grade(
    bundle, refusing_bwrap, tmp_path
):
    root = autograder_root(bundle, tmp_path)
    (root / "submission" / "reference.py").write_bytes(REFERENCE.read_bytes())
    completed = run_autograder(root, path=refusing_bwrap)
    assert completed.returncode == 1
    assert completed.stderr.startswith("grader: error: bubblewrap is required")
    assert completed.stderr.count("\n") == 1
    assert not (root / "results" / "results.json").exists()


@pytest.mark.bwrap
def test_setup_s_self_check_fails_the_image_without_bubblewrap(bundle, refusing_bwrap, tmp_path):
    root = autograder_root(bundle, tmp_path)
    environment = {"PATH": refusing_bwrap, "LANG": "C.UTF-8"}
    completed = run_selfcheck(root, environment, timeout=120)
    assert completed.returncode == 1
    assert "bubblewrap is required" in completed.stderr


@pytest.mark.bwrap
def test_a_bundle_built_for_process_isolation_grades_and_says_so(refusing_bwrap, tmp_path):
    bundle = build_bundle(tmp_path, "--isolation", "process")
    root = autograder_root(bundle, tmp_path / "root")
    (root / "submission" / "reference.py").write_bytes(REFERENCE.read_bytes())
    completed = run_autograder(root, path=refusing_bwrap)
    assert completed.returncode == 0, completed.stderr
    document = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert document["score"] == 70
    assert document["extra_data"]["isolation"].startswith("a separate process, without bubblewrap")
    assert "Isolation: a separate process, without bubblewrap" in completed.stdout


def options_unknown_to_bubblewrap_0_6(command):
    """Return what in a bubblewrap command line bubblewrap 0.6 would refuse (nothing, if all ok)."""
    assert command[0] == "bwrap"
    refused, index = [], 1
    while index < len(command):
        option = command[index]
        if option not in OPTIONS_OF_0_6:
            refused.append(option)
            index += 1
            continue
        following = index + 1 + OPTIONS_OF_0_6[option]
        if option == "--perms":
            after = command[following] if following < len(command) else "the end"
            if after not in TAKE_PERMS_IN_0_6:
                refused.append(f"--perms before {after}")
        index = following
    return refused


@pytest.mark.parametrize("uid", [None, containment.UID_BASE], ids=["as-a-user", "as-root"])
def test_the_sandbox_command_uses_only_options_bubblewrap_0_6_knows(uid, tmp_path):
    isolation = containment.Isolation("bubblewrap", str(tmp_path), uid)
    assert options_unknown_to_bubblewrap_0_6(containment.bubblewrap_prefix(isolation)) == []


def test_the_option_check_catches_what_ubuntu_22_04_refused():
    command = ["bwrap", "--unshare-pid", "--perms", "1777", "--size", "100", "--tmpfs", "/tmp"]
    refused = ["--perms before --size", "--size", "100"]
    assert options_unknown_to_bubblewrap_0_6(command) == refused
    assert options_unknown_to_bubblewrap_0_6(["bwrap", "--perms", "0755", "--dir", "/x"]) == []
    assert options_unknown_to_bubblewrap_0_6(["bwrap", "--disable-userns"]) == ["--disable-userns"]


@pytest.mark.bwrap
def test_the_0_6_option_table_is_no_larger_than_this_machine_s_bubblewrap():
    """Each option of the table is one the installed (newer) bubblewrap documents too."""
    usage = subprocess.run(["bwrap", "--help"], capture_output=True, text=True, check=False)
    documented = set(usage.stdout.replace(",", " ").split())
    assert set(OPTIONS_OF_0_6) - documented <= {"--userns2", "--exec-label", "--file-label"}
