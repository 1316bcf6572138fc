"""The project's pins, read once for the handout and the Gradescope bundle."""

import pytest

from grader.install.requirements import pinned_requirements

pytestmark = []

REQUIREMENTS = """\
# a comment naming pytest==1.0
jupyterlab==4.6.6
Notebook == 7.6.5  # the classic interface
pytest
-e .
pyseccomp==0.1.2
"""


@pytest.fixture
def requirements_file(tmp_path):
    path = tmp_path / "requirements.txt"
    path.write_text(REQUIREMENTS, encoding="utf-8")
    return path


def test_each_package_gets_its_pinned_line_in_the_order_asked(requirements_file):
    lines = pinned_requirements(("pyseccomp", "notebook", "jupyterlab"), requirements_file)
    assert lines == [
        "pyseccomp==0.1.2",
        "Notebook == 7.6.5  # the classic interface",
        "jupyterlab==4.6.6",
    ]


def test_a_package_without_a_pin_is_refused_by_name(requirements_file):
    with pytest.raises(ValueError, match="pins none of: pytest, ipykernel"):
        pinned_requirements(("jupyterlab", "pytest", "ipykernel"), requirements_file)
