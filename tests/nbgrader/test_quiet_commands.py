"""nbgrader commands run with the course's config say nothing that looks like trouble."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.kernel, pytest.mark.nbgrader, pytest.mark.bwrap, pytest.mark.slow]

PROJECT = Path(__file__).resolve().parents[2]


def test_an_nbgrader_command_does_not_warn_that_the_root_is_not_absolute(tmp_path):
    # The course's own config, in a folder of its own: its gradebook is made there, not here.
    shutil.copyfile(PROJECT / "nbgrader_config.py", tmp_path / "nbgrader_config.py")
    nbgrader = Path(sys.executable).with_name("nbgrader")
    done = subprocess.run(
        [str(nbgrader), "db", "assignment", "list"],
        cwd=tmp_path,
        # A new gradebook is made by running `alembic`, which nbgrader finds on PATH.
        env=dict(os.environ, PATH=f"{nbgrader.parent}{os.pathsep}{os.environ.get('PATH', '')}"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "There are" in done.stdout + done.stderr
    assert "is not absolute" not in done.stdout + done.stderr
    assert (tmp_path / "gradebook.db").exists()  # the root really is the config's folder
