"""Builders for tests that take real Unix students through nbgrader's exchange (root, as CI runs).

make_student(base, name)        # an account whose home is under base, set up for base/exchange
run_as(user, cwd, "submit", …)  # an nbgrader command as `user` (None: the instructor)
own_tree(folder, user)          # give `user` a folder written for them, as if they wrote it
"""

import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

from accounts import make_account
from conftest import VENV_BIN

COURSE_ID = "bounded-results"


def run_as(user, cwd, *arguments, python=None, check=True):
    """Run an nbgrader command as `user` (None: the instructor, root) in `cwd`."""
    python = python or Path(sys.executable)
    environment = {
        "PATH": os.pathsep.join([str(python.parent), str(VENV_BIN), "/usr/bin", "/bin"]),
        "LANG": "C.UTF-8",
    }
    options = {}
    if user is not None:
        account = pwd.getpwnam(user)
        environment["HOME"] = account.pw_dir
        options = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}
    else:
        environment["HOME"] = os.environ.get("HOME", "/root")
    done = subprocess.run(
        [str(python), "-m", "nbgrader", *arguments],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        **options,
    )
    output = done.stdout + done.stderr
    if check:
        assert done.returncode == 0, f"{user or 'instructor'}: nbgrader {arguments[0]}:\n{output}"
    return output


def make_student(base, name):
    """Create a Unix account `name` with its home under `base`, as an administrator would."""
    home = base / "home" / name
    make_account(name, home)
    # The student's own nbgrader settings: the course and where its exchange is.
    config = home / ".jupyter" / "nbgrader_config.py"
    config.parent.mkdir()
    config.write_text(
        f"c = get_config()\nc.CourseDirectory.course_id = {COURSE_ID!r}\n"
        f"c.Exchange.root = {str(base / 'exchange')!r}\n",
        encoding="utf-8",
    )
    shutil.chown(config.parent, name, name)
    shutil.chown(config, name, name)


def own_tree(folder, user):
    """Give `folder` and everything in it to `user`, as if they had written it."""
    for path in [folder, *folder.rglob("*")]:
        shutil.chown(path, user, user)
