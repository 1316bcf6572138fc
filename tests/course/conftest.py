"""The course's tests, laid out like course/; their shared builders are in builders.py.

Being a conftest, this file puts tests/course on the import path of every test below it, so
tests in checks/ and widgets/ import `builders` as the ones beside it do.
"""

import pytest
from builders import reference_namespace


@pytest.fixture
def reference_steps():
    """A fresh notebook namespace holding the reference functions of every graded step."""
    return reference_namespace()
