"""A real autograde whose Python lives under /tmp, where the kernel has a private /tmp of its own.

The course's virtual environment (a copy of this one) is put under /tmp and autograde runs from
it: the kernel's sandbox binds that environment at its real path on top of its private /tmp, so
the kernels start, confined, and the reference earns every point. Before, autograde refused,
saying bubblewrap could not run.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from classroom import ASSIGNMENT, reference_answers, write_student
from conftest import GRADED_NOTEBOOK, enrol, gradebook_category_scores, new_course

pytestmark = [pytest.mark.kernel, pytest.mark.nbgrader, pytest.mark.bwrap, pytest.mark.slow]

STUDENT = "ada"


@pytest.fixture(scope="module")
def environment_under_tmp():
    """A copy of this virtual environment in a folder under /tmp, removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="course-env-", dir="/tmp"))
    try:
        environment = folder / "venv"
        shutil.copytree(sys.prefix, environment, symlinks=True)
        yield environment
    finally:
        shutil.rmtree(folder)


@pytest.fixture(scope="module")
def autograded(tmp_path_factory, environment_under_tmp):
    root = new_course(tmp_path_factory, "from-tmp")
    write_student(root / "submitted", STUDENT, reference_answers())
    enrol(root, [STUDENT])
    python = environment_under_tmp / "bin" / "python"
    path = os.pathsep.join([str(python.parent), os.environ.get("PATH", "")])
    done = subprocess.run(
        [str(python), "-m", "nbgrader", "autograde", ASSIGNMENT],
        cwd=root,
        env=dict(os.environ, PATH=path),
        capture_output=True,
        text=True,
        check=False,
    )
    return root, done


def test_the_environment_is_really_under_tmp(environment_under_tmp):
    assert Path(os.path.realpath(environment_under_tmp)).parts[:2] == ("/", "tmp")


def test_autograde_runs_the_confined_kernels_from_an_environment_under_tmp(autograded):
    root, done = autograded
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Autograde stopped" not in done.stderr
    assert "with your rights" not in done.stderr
    graded = root / "autograded" / STUDENT / ASSIGNMENT / f"{GRADED_NOTEBOOK}.ipynb"
    assert graded.is_file()


def test_the_reference_earns_every_point(autograded):
    root, _ = autograded
    assert set(gradebook_category_scores(root, STUDENT).values()) == {10.0}
