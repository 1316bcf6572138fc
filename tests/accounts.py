"""Builders for tests that act as real Unix users without root (nbgrader's students, hosts).

python = python_for_users(base)        # an interpreter every user may run, with our packages
make_account(name, home)               # useradd, as an administrator would (needs root)
remove_account(name)
"""

import os
import stat
import subprocess
import sys
from pathlib import Path


def reachable_by_all(path):
    """Say whether every user may run `path`: it and each folder above it let others in."""
    path = Path(os.path.realpath(path))
    return all(os.stat(p).st_mode & stat.S_IXOTH for p in [path, *path.parents])


def python_for_users(base):
    """Return a Python the test's accounts can run, with this environment's packages.

    The test's own interpreter serves when every user may run it. Where it is not (a Python
    installed under a private home, as on CI's machine), a system Python of the same version
    gets the packages through a .pth file, in a small environment under `base`.
    """
    if reachable_by_all(sys.executable):
        return Path(sys.executable)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    system = Path("/usr/bin") / version
    assert reachable_by_all(system), f"no {version} that the test's accounts may run"
    folder = base / "user-python"
    subprocess.run([str(system), "-m", "venv", "--without-pip", str(folder)], check=True)
    [site_packages] = (folder / "lib").glob("python*/site-packages")
    ours = next(p for p in map(Path, sys.path) if p.name == "site-packages" and p.is_dir())
    (site_packages / "course-packages.pth").write_text(
        f"import site; site.addsitedir({str(ours)!r})\n", encoding="utf-8"
    )
    return folder / "bin" / "python"


def make_account(name, home):
    """Create the Unix account `name`, with its own group and its home at `home`."""
    subprocess.run(
        ["useradd", "--create-home", "--home-dir", str(home), "--user-group", name],
        check=True,
        capture_output=True,
    )


def remove_account(name):
    subprocess.run(["userdel", "--remove", name], capture_output=True, check=False)
