"""The course code copied beside student code (COURSE_RUNTIME) is whole and standard-library only.

The grading sandbox and the Gradescope bundle hold only the files COURSE_RUNTIME names, so every
course module those files import must be among them, and nothing else may be imported but the
standard library.
"""

import ast
import sys

import pytest

from grader.paths import PROJECT_ROOT
from grader.sandbox.runtime import COURSE_RUNTIME

pytestmark = []


def imported_modules(path):
    """Return the modules a file imports, at any depth (a function's own imports included)."""
    tree = ast.parse((PROJECT_ROOT / path).read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            # `from course import supplied` imports the module course/supplied.py.
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def module_file(name):
    """Return the repository path of a course module, or None when `name` is not a module."""
    for candidate in (f"{name.replace('.', '/')}.py", f"{name.replace('.', '/')}/__init__.py"):
        if (PROJECT_ROOT / candidate).is_file():
            return candidate
    return None


@pytest.mark.parametrize("path", COURSE_RUNTIME)
def test_each_runtime_file_imports_the_standard_library_and_other_runtime_files_only(path):
    for name in imported_modules(path):
        top = name.split(".")[0]
        if top == "course":
            found = module_file(name)
            assert found is None or found in COURSE_RUNTIME, f"{path} imports {found}"
        else:
            assert top in sys.stdlib_module_names, f"{path} imports {name}"


def test_the_runtime_holds_the_assembly_the_supplied_names_and_the_contract():
    assert {"course/carry/assemble.py", "course/supplied.py", "course/contract.py"} <= set(
        COURSE_RUNTIME
    )
