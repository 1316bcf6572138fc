"""nbgrader's Validate tells an untouched lesson from a finished one, with no false failure.

The visible checks are 0-point grade cells: Validate fails a notebook whose check writes its
miss to stderr, and passes one whose checks all pass. No demo writes to stderr, so even
`--Validator.validate_all=True` passes a finished notebook.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from notebook_runs import LESSONS, copy_folder, finished_lessons

pytestmark = [pytest.mark.kernel, pytest.mark.nbgrader]

NBGRADER = Path(sys.executable).with_name("nbgrader")
# Step 2 has the logging demo, step 7 the check of everything saved.
NOTEBOOKS = ("02-failure-codes.ipynb", "07-invoke-tool.ipynb")


def validate(folder, notebook_name, *options):
    """Run `nbgrader validate` as the Validate button does; return what it printed."""
    environment = dict(os.environ, PATH=f"{NBGRADER.parent}{os.pathsep}{os.environ['PATH']}")
    result = subprocess.run(
        [str(NBGRADER), "validate", notebook_name, *options],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    return result.stdout


@pytest.mark.parametrize("notebook_name", NOTEBOOKS)
def test_an_untouched_lesson_fails_validation_saying_what_is_unfinished(notebook_name, tmp_path):
    printed = validate(copy_folder(LESSONS, tmp_path), notebook_name)
    assert "VALIDATION FAILED" in printed
    assert "is not finished yet" in printed


@pytest.mark.parametrize("notebook_name", NOTEBOOKS)
def test_a_finished_lesson_passes_validation_even_validating_every_cell(notebook_name, tmp_path):
    work = finished_lessons(tmp_path)
    assert "Success! Your notebook passes all the tests." in validate(work, notebook_name)
    everything = validate(work, notebook_name, "--Validator.validate_all=True")
    assert "Success! Your notebook passes all the tests." in everything, everything
