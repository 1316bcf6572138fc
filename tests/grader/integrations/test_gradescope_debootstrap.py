"""The Gradescope bundle end to end in a fresh Debian root, as Gradescope builds and runs it.

A minimal root made by debootstrap from the Debian archive (cached under build/, keyed by what
made it) is copied for this module; the bundle is unzipped into its /autograder/source; the real
setup.sh runs in it as root (apt, a virtual environment, pip, and the bundle's self-check), then
the real run_autograder grades one submission at a time, the sandbox on. Each command runs in a
mount namespace of its own, chrooted into the root with /proc, /dev and /sys mounted, so nothing
is left mounted on the machine. Needs root, debootstrap and the archive: `make test` (CI) has all.
"""

import hashlib
import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from gradescope_roots import (
    HONEST_TWIN,
    PROJECT,
    REFERENCE,
    SEARCHER,
    build_bundle,
    visible_checks_of,
)

from course.checks import CHECKS

MIRROR = "http://deb.debian.org/debian"
SUITE = "bookworm"  # Debian 12, whose Python (3.11) and bubblewrap (0.8) Gradescope would get
CACHE = PROJECT / "build" / "gradescope-roots"
WITHOUT_LANDLOCK = PROJECT / "tests" / "hosts" / "without_landlock.py"
# Bubblewrap older than Ubuntu 22.04's 0.6: Debian 11's 0.4.1, to run the sandbox's command line
# for real with an old bubblewrap (the archive holds no 0.6).
OLD_BUBBLEWRAP = ("bullseye", "bubblewrap=0.4.1-3")
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
SHELL_IN_ROOT = """
set -e
mount --bind "$ROOT" "$ROOT"  # a mount point, so bubblewrap inside can pivot_root
mount -t proc proc "$ROOT/proc"
mount --rbind /dev "$ROOT/dev"
mount --rbind /sys "$ROOT/sys"
exec chroot "$ROOT" /usr/bin/env -i "$@"
"""
# Where the root keeps this machine's certificate authorities: its network may reach the package
# registries through a proxy of its own, which pip in the root must trust as pip here does.
MACHINE_CA = "/etc/machine-ca.crt"
SYSTEM_CA = "/etc/ssl/certs/ca-certificates.crt"

pytestmark = [
    pytest.mark.bwrap,
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="chroot needs root (CI runs as root)"),
]


def debootstrap_key():
    """Return the cache key of the base root: everything that decides what debootstrap makes."""
    version = subprocess.run(
        ["debootstrap", "--version"], capture_output=True, text=True, check=True
    ).stdout
    made_by = json.dumps([MIRROR, SUITE, "minbase", version.strip()])
    return hashlib.sha256(made_by.encode()).hexdigest()[:16]


def base_root():
    """Return a minimal Debian root made by debootstrap, built once and kept in the cache."""
    if shutil.which("debootstrap") is None:
        pytest.fail("debootstrap is missing: `make test` installs it (apt-get install debootstrap)")
    done = CACHE / debootstrap_key()
    if (done / "root" / "etc" / "debian_version").exists():
        return done / "root"
    partial = CACHE / f"{done.name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    command = ["debootstrap", "--variant=minbase", SUITE, str(partial / "root"), MIRROR]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=1200, check=False)
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    shutil.rmtree(done, ignore_errors=True)
    partial.rename(done)  # only a finished root is ever found under its key
    for stale in CACHE.glob("????????????????"):  # roots made under other keys are never used again
        if stale != done:
            shutil.rmtree(stale, ignore_errors=True)
    return done / "root"


def in_root(root, script, timeout=900):
    """Run a bash `script` as root inside `root`, in a clean environment; return the process."""
    inner = {"PATH": PATH, "LANG": "C.UTF-8", "HOME": "/root"}
    if (Path(root) / MACHINE_CA.lstrip("/")).exists():
        inner["PIP_CERT"] = MACHINE_CA
    settings = [f"{name}={value}" for name, value in inner.items()]
    enter = ["unshare", "--mount", "--propagation", "private", "sh", "-c", SHELL_IN_ROOT, "sh"]
    return subprocess.run(
        [*enter, *settings, "bash", "-c", script],
        env={"ROOT": str(root), "PATH": PATH},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    """A fresh copy of the base root with the bundle in /autograder/source, after setup.sh."""
    root = tmp_path_factory.mktemp("image") / "root"
    subprocess.run(["cp", "-a", "--reflink=auto", str(base_root()), str(root)], check=True)
    shutil.copy("/etc/resolv.conf", root / "etc" / "resolv.conf")  # apt and pip reach out
    named = [os.environ.get(name) for name in ("PIP_CERT", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE")]
    trusted = [Path(p) for p in [*named, SYSTEM_CA] if p and Path(p).is_file()]
    if trusted:
        shutil.copy(trusted[0], root / MACHINE_CA.lstrip("/"))
    bundle = build_bundle(tmp_path_factory.mktemp("bundle"))
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "autograder" / "source")
    for name in ("setup.sh", "run_autograder"):
        (root / "autograder" / "source" / name).chmod(0o755)  # as Gradescope unzips them
    setup = in_root(root, "cd /autograder/source && ./setup.sh")
    assert setup.returncode == 0, setup.stdout[-5000:] + setup.stderr[-5000:]
    # Gradescope copies run_autograder to /autograder and runs it from there.
    shutil.copy(root / "autograder/source/run_autograder", root / "autograder/run_autograder")
    return root, setup.stdout


def grade_in(image, submission, name=None):
    """Put `submission` alone in /autograder/submission, run run_autograder; return its result."""
    root, _ = image
    for folder in ("submission", "results"):
        shutil.rmtree(root / "autograder" / folder, ignore_errors=True)
        (root / "autograder" / folder).mkdir()
    shutil.copy(submission, root / "autograder" / "submission" / (name or submission.name))
    completed = in_root(root, "cd /autograder && ./run_autograder", timeout=300)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    results = root / "autograder" / "results" / "results.json"
    return json.loads(results.read_text(encoding="utf-8")), completed.stdout


def test_setup_sh_builds_the_image_and_ends_with_a_passing_self_check(image):
    _, stdout = image
    assert "Isolation: bubblewrap (" in stdout
    assert "✓ the reference solution scores 70.00 out of 70.00" in stdout
    assert "✓ the submission that searches the disk for the hidden tests scores" in stdout
    assert "Self-check passed" in stdout


def test_the_source_folder_is_root_s_alone(image):
    root, _ = image
    listing = in_root(root, "stat -c '%a %U' /autograder/source")
    assert listing.stdout.split() == ["700", "root"]


def test_the_reference_scores_70_of_70_with_the_sandbox_on(image):
    document, stdout = grade_in(image, REFERENCE)
    assert document["score"] == 70
    assert document["extra_data"]["isolation"].startswith("bubblewrap (")
    assert "Isolation: bubblewrap (" in stdout
    # Every test passes, the course's visible checks (run in the sandbox too) among them.
    assert len(visible_checks_of(document)) == len(CHECKS)
    assert {test["status"] for test in document["tests"]} == {"passed"}


def test_a_submission_searching_the_disk_gains_nothing_over_its_honest_twin(image):
    searcher, _ = grade_in(image, SEARCHER, "answer.py")
    twin, _ = grade_in(image, HONEST_TWIN, "answer.py")
    assert twin["score"] < 70  # the twin's bug costs points, which reading could win back
    assert searcher["score"] == twin["score"]
    assert [t["status"] for t in searcher["tests"]] == [t["status"] for t in twin["tests"]]


def test_the_search_finds_and_uses_the_hidden_tests_where_nothing_stops_it(image):
    """The attack is real: with the source readable, no bubblewrap and no Landlock, it scores
    full marks (tests/hosts/without_landlock.py takes Landlock away, as an older kernel would).
    """
    root, _ = image
    shutil.copy(WITHOUT_LANDLOCK, root / "tmp" / "without_landlock.py")
    script = (
        "chmod -R a+rX /autograder/source && cd /autograder/source && "
        "/autograder/venv/bin/python /tmp/without_landlock.py "
        "/autograder/venv/bin/python -m grader grade /autograder/submission/answer.py "
        "--isolation process --allow-unconfined-files --out /tmp/unconfined"
    )
    shutil.rmtree(root / "autograder" / "submission", ignore_errors=True)
    (root / "autograder" / "submission").mkdir()
    shutil.copy(SEARCHER, root / "autograder" / "submission" / "answer.py")
    completed = in_root(root, script, timeout=300)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    results = root / "tmp" / "unconfined" / "answer" / "results.json"
    assert json.loads(results.read_text(encoding="utf-8"))["score"] == 70
    in_root(root, "chmod -R go-rwx /autograder/source")


def old_bubblewrap(folder):
    """Return Debian 11's bwrap (0.4.1), unpacked from the archive with apt into `folder`."""
    suite, package = OLD_BUBBLEWRAP
    binary = folder / "usr" / "bin" / "bwrap"
    if binary.exists():
        return binary
    lists = folder / "lists"
    (lists / "partial").mkdir(parents=True, exist_ok=True)
    sources = folder / "sources.list"
    sources.write_text(f"deb {MIRROR} {suite} main\n", encoding="utf-8")
    options = [
        f"-oDir::Etc::SourceList={sources}",
        "-oDir::Etc::SourceParts=/nonexistent",
        f"-oDir::State::Lists={lists}",
    ]
    subprocess.run(["apt-get", *options, "update"], capture_output=True, check=True, timeout=600)
    subprocess.run(
        ["apt-get", *options, "download", package], cwd=folder, capture_output=True, check=True
    )
    [deb] = folder.glob("bubblewrap_*.deb")
    subprocess.run(["dpkg-deb", "-x", str(deb), str(folder)], check=True)
    return binary


def test_the_sandbox_runs_under_an_older_bubblewrap_than_ubuntu_22_04_s(image):
    """Debian 11's bubblewrap 0.4.1 knows fewer options than Ubuntu 22.04's 0.6.1."""
    root, _ = image
    binary = old_bubblewrap(CACHE / "bubblewrap-0.4.1")
    shutil.copy(binary, root / "usr" / "local" / "bin" / "bwrap")  # first on run_autograder's PATH
    try:
        version = in_root(root, "bwrap --version").stdout.strip()
        assert version == "bubblewrap 0.4.1"
        document, _ = grade_in(image, REFERENCE)
    finally:
        (root / "usr" / "local" / "bin" / "bwrap").unlink()
    assert document["score"] == 70
    assert document["extra_data"]["isolation"].startswith("bubblewrap (")
