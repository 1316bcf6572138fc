"""On this machine, as a real user without root: with bubblewrap, without it, without Landlock.

CI runs the whole suite as root; here a Unix account made for the test (as an instructor's own
login) runs the sandbox's attack and limit tests and grades the sample class beside the
confinement probe, once with bubblewrap and once with GRADER_ISOLATION=process (a container
without user namespaces, or Ubuntu 24.04's AppArmor rule for them). This machine mounts cgroup
v1, which only root may write: that user has no cgroups here (the VM has them). Last, the same
user on a kernel without Landlock (tests/hosts/without_landlock.py) and without bubblewrap:
`grade` refuses, and told to go on, the probe reaches what it looks for, so its search is real.
"""

import os
import pwd
import secrets
import shutil
import tempfile
from pathlib import Path

import pytest
from accounts import make_account, python_for_users, remove_account
from scenarios import (
    MARKER,
    Host,
    grade_probe_class,
    make_checkout,
    run_sandbox_tests,
)

pytestmark = [
    pytest.mark.bwrap,
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="making a user account needs root (CI is root)"),
]
WITHOUT_LANDLOCK = Path(__file__).with_name("without_landlock.py")
SAMPLE = ("ada", "alan", "barbara", "grace", "linus")
USER_HOSTS = ("user-bubblewrap", "user-process")


@pytest.fixture(scope="module")
def place():
    """A folder every user may enter, a Python they may run, and an account without root."""
    name = f"hosts{secrets.token_hex(3)}"
    base = Path(tempfile.mkdtemp(prefix="grader-hosts-"))
    base.chmod(0o755)
    make_account(name, base / "home")
    try:
        account = pwd.getpwnam(name)
        hosts = {
            "root": Host("root"),
            "user-bubblewrap": Host("user-bubblewrap", account.pw_uid, "none", home=account.pw_dir),
            "user-process": Host(
                "user-process", account.pw_uid, "none", isolation="process", home=account.pw_dir
            ),
            "user-without-landlock": Host(
                "user-without-landlock",
                account.pw_uid,
                "none",
                landlock=0,
                isolation="process",
                home=account.pw_dir,
            ),
        }
        yield base, python_for_users(base), hosts
    finally:
        remove_account(name)
        shutil.rmtree(base, ignore_errors=True)


def _folder(base, name, host):
    folder = base / name
    folder.mkdir()
    if host.uid is not None:
        os.chown(folder, host.uid, host.uid)
    return folder


@pytest.fixture(scope="module")
def graded(place):
    """The sample class, the probe and its twin, graded by root and by the user on each host."""
    base, python, hosts = place
    found = {}
    for name in ("root", *USER_HOSTS):
        host = hosts[name]
        folder = _folder(base, name, host)
        checkout = make_checkout(folder / "project", host.uid)
        found[name] = grade_probe_class(python, checkout, folder / "class", host)
    return found


@pytest.mark.parametrize("name", USER_HOSTS)
def test_the_sandbox_tests_pass_for_a_user_without_root(place, name):
    base, python, hosts = place
    host = hosts[name]
    folder = _folder(base, f"tests-{name}", host)
    checkout = make_checkout(folder / "project", host.uid)
    code, said = run_sandbox_tests(python, checkout, host, folder / "pytest")
    assert code == 0, said
    assert " passed" in said and "failed" not in said and "skipped" not in said, said


@pytest.mark.parametrize("name", ["root", *USER_HOSTS])
def test_the_probe_reaches_nothing_and_earns_exactly_its_twins_grade(graded, name):
    result = graded[name]
    assert result["exit"] == 0, result["stderr"]
    assert result["markers"] == []
    assert result["rows"]["confinement-probe"] == result["rows"]["confinement-probe-twin"]


@pytest.mark.parametrize("name", USER_HOSTS)
def test_the_sample_class_grades_as_it_does_for_root(graded, name):
    mine = {student: graded[name]["rows"][student] for student in SAMPLE}
    assert mine == {student: graded["root"]["rows"][student] for student in SAMPLE}


def test_the_isolation_line_says_what_holds_for_a_user_without_root(graded):
    contained, plain = graded["user-bubblewrap"]["isolation"], graded["user-process"]["isolation"]
    for line in (contained, plain):
        assert "every worker runs as the grader's own user" in line
        assert "Landlock ABI" in line and "no cgroups (not writable here)" in line
        assert "a user id of its own" not in line
    assert contained.startswith("Isolation: bubblewrap (")
    assert plain.startswith("Isolation: a separate process, without bubblewrap")


def test_grade_refuses_where_neither_landlock_nor_bubblewrap_confines_files(place):
    base, python, hosts = place
    host = hosts["user-without-landlock"]
    host = Host(**{**host.__dict__, "wrapper": (str(python), str(WITHOUT_LANDLOCK))})
    folder = _folder(base, "refused", host)
    checkout = make_checkout(folder / "project", host.uid)
    result = grade_probe_class(python, checkout, folder / "class", host)
    assert result["exit"] == 2
    [line] = result["stderr"]
    assert line.startswith("grader: error: student code would not be kept from your files")
    assert "--allow-unconfined-files" in line
    assert result["rows"] == {}


def test_told_to_go_on_unconfined_the_probe_reaches_what_it_looks_for(place):
    """The probe's search is real: without both walls it writes and reads where it should not."""
    base, python, hosts = place
    host = hosts["user-without-landlock"]
    host = Host(**{**host.__dict__, "wrapper": (str(python), str(WITHOUT_LANDLOCK))})
    folder = _folder(base, "unconfined", host)
    checkout = make_checkout(folder / "project", host.uid)
    result = grade_probe_class(python, checkout, folder / "class", host, "--allow-unconfined-files")
    assert result["exit"] == 0, result["stderr"]
    assert "no Landlock (the kernel offers none)" in result["isolation"]
    probe, twin = result["rows"]["confinement-probe"], result["rows"]["confinement-probe-twin"]
    assert float(probe["score"]) > float(twin["score"])
    wrote_into = {Path(marker).parent for marker in result["markers"]}
    assert folder / "class" / "batch" in wrote_into
    assert folder / "class" / "out" in wrote_into
    assert checkout in wrote_into
    assert all(Path(marker).name == MARKER for marker in result["markers"])
