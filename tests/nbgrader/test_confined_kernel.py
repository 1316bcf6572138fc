"""The kernel autograde starts sees a copy of the student's folder and the course code, no more.

One kernel, started by ConfinedExecute as autograde starts it, runs a notebook whose cell
looks around: who it runs as, what it can read, write and reach. Its working folder is
a copy of a student's folder holding a link and a file that nbgrader copied from a link; the
instructor's machine listens on a port. Then its sockets folder, where the kernel could put a
link for nbgrader to follow, and the one place that decides the confinement.
"""

import json
import os
import socket
import sys
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from traitlets.config import Config

from grader.integrations import kernel_confinement
from grader.integrations.kernel_confinement import (
    BUBBLEWRAP,
    UNCONFINED,
    ConfinementUnavailable,
    KernelConfinement,
    choose_kernel_confinement,
    confined_command,
    kernel_uid,
)
from grader.integrations.kernel_places import KernelChannelError, KernelPlaces
from grader.integrations.nbgrader_kernel import ConfinedExecute
from grader.paths import HIDDEN_TESTS, PROJECT_ROOT, SOLUTIONS

pytestmark = [pytest.mark.kernel, pytest.mark.nbgrader, pytest.mark.bwrap, pytest.mark.slow]

STUDENT = "lin"
# Runs in the kernel: says what it is and tries what it must not do, as one JSON line.
LOOK_AROUND = r"""
import json, os, socket, sys

def outcome(action):
    try:
        action()
    except Exception as error:
        return type(error).__name__
    return "done"

def write(path):
    with open(path, "w") as file:
        file.write("written by the kernel")

def read(path):
    with open(path, "rb") as file:
        file.read()

def connect():
    socket.create_connection(("127.0.0.1", PLACES["port"]), timeout=5).close()

status = dict(line.split(":\t", 1) for line in open("/proc/self/status").read().splitlines())
print(json.dumps({
    "uid": os.getuid(),
    "groups": os.getgroups(),
    "capabilities": [status[name].strip() for name in ("CapEff", "CapPrm", "CapBnd", "CapAmb")],
    "no_new_privileges": status["NoNewPrivs"].strip(),
    "working_folder": sorted(os.listdir(".")),
    "course_code": __import__("course").__file__,
    "import grader": outcome(lambda: __import__("grader")),
    "read the hidden tests": outcome(lambda: read(PLACES["hidden_tests"] + "/conftest.py")),
    "read the solutions": outcome(lambda: os.listdir(PLACES["solutions"])),
    "read the student's own folder": outcome(lambda: os.listdir(PLACES["student_folder"])),
    "write its working folder": outcome(lambda: write("written.txt")),
    "write /tmp": outcome(lambda: write("/tmp/written.txt")),
    "write the Python environment": outcome(lambda: write(sys.prefix + "/written.txt")),
    "write the course code": outcome(lambda: write("/grader-runtime/written.txt")),
    "connect to the instructor's machine": outcome(connect),
    "network interfaces": [name for _, name in socket.if_nameindex()],
}))
"""


def execute(notebook, resources, **options):
    """Run `notebook` as autograde's ConfinedExecute runs it, for `resources`; return it."""
    course = Config()
    course.CourseDirectory.root = resources.pop("course_root", "/nonexistent")
    ConfinedExecute(config=course, **options).preprocess(notebook, resources)
    return notebook


def stdout(cell):
    """Return what a cell printed."""
    return "".join(o.text for o in cell.outputs if o.get("name") == "stdout")


@pytest.fixture(scope="module")
def autograding(tmp_path_factory):
    """The resources autograde gives a student's notebook, whose folders hold two links.

    The autograded folder holds a link, and a file nbgrader copied from a link in the folder
    as submitted.
    """
    root = tmp_path_factory.mktemp("confined")
    folder = root / "autograded" / STUDENT / "bounded_results"
    submitted = root / "submitted" / STUDENT / "bounded_results"
    folder.mkdir(parents=True)
    submitted.mkdir(parents=True)
    (folder / "notes.txt").write_text("the student's own notes", encoding="utf-8")
    (folder / "copied-from-a-link.txt").write_text("what the link named", encoding="utf-8")
    (submitted / "copied-from-a-link.txt").symlink_to(PROJECT_ROOT / "README.md")
    (folder / "a-link").symlink_to(PROJECT_ROOT / "README.md")
    return {
        "metadata": {"path": str(folder)},
        "nbgrader": {"student": STUDENT, "assignment": "bounded_results"},
        "course_root": str(root),
    }


@pytest.fixture(scope="module")
def listener():
    """A port the instructor's machine listens on."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.setblocking(False)
        yield server


@pytest.fixture(scope="module")
def facts(autograding, listener):
    """What the confined kernel said about itself and its attempts."""
    places = {
        "port": listener.getsockname()[1],
        "hidden_tests": str(HIDDEN_TESTS),
        "solutions": str(SOLUTIONS),
        "student_folder": autograding["metadata"]["path"],
    }
    source = f"PLACES = {places!r}\n{LOOK_AROUND}"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    execute(notebook, dict(autograding), timeout=60)
    return json.loads(stdout(notebook.cells[0]))


def test_as_root_the_kernel_runs_as_a_user_of_its_own_with_no_capabilities(facts):
    assert os.geteuid() == 0, "CI runs nbgrader as root, as many course servers do"
    assert facts["uid"] == kernel_uid() != 0
    assert facts["groups"] == []
    assert facts["capabilities"] == ["0000000000000000"] * 4
    assert facts["no_new_privileges"] == "1"


def test_the_kernel_works_in_a_copy_of_the_folder_without_anything_a_link_brought(
    facts, autograding
):
    folder = Path(autograding["metadata"]["path"])
    assert facts["working_folder"] == ["notes.txt"]
    assert facts["write its working folder"] == "done"
    assert not (folder / "written.txt").exists()  # the copy was written, never the folder


def test_the_kernel_imports_the_course_code_and_nothing_of_the_grader(facts):
    assert facts["course_code"] == "/grader-runtime/course/__init__.py"
    assert facts["import grader"] == "ModuleNotFoundError"


@pytest.mark.parametrize(
    "attempt",
    ["read the hidden tests", "read the solutions", "read the student's own folder"],
)
def test_the_kernel_cannot_see_the_course_or_the_folder_it_was_copied_from(facts, attempt):
    assert facts[attempt] == "FileNotFoundError"


@pytest.mark.parametrize("attempt", ["write the Python environment", "write the course code"])
def test_the_kernel_cannot_write_what_it_is_shown(facts, attempt):
    assert facts[attempt] == "OSError"  # a read-only file system


def test_the_kernel_writes_a_tmp_of_its_own(facts):
    assert facts["write /tmp"] == "done"
    assert not os.path.exists("/tmp/written.txt")


def test_the_kernel_has_no_network(facts, listener):
    assert facts["network interfaces"] == ["lo"]
    assert facts["connect to the instructor's machine"] == "ConnectionRefusedError"
    with pytest.raises(BlockingIOError):
        listener.accept()


def test_an_interrupt_reaches_the_confined_kernel_and_it_goes_on(tmp_path):
    cells = ["while True:\n    pass", "print('still running')"]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    execute(notebook, {"metadata": {"path": str(tmp_path)}}, timeout=3)
    errors = [o.ename for o in notebook.cells[0].outputs if o.output_type == "error"]
    assert "KeyboardInterrupt" in errors  # raised in the kernel, beside nbgrader's timeout
    assert stdout(notebook.cells[1]) == "still running\n"


def test_a_link_put_among_the_kernels_sockets_is_never_connected_to(tmp_path):
    places = KernelPlaces.make(None, kernel_uid())
    try:
        outside = tmp_path / "someone-elses-socket"
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(outside))
            (places.sockets / "kernel-ipc-1").symlink_to(outside)
            with pytest.raises(KernelChannelError, match="not a socket the kernel opened"):
                places.link_sockets([1, 2])
        assert list((places.root / "host").iterdir()) == []
    finally:
        places.remove()


def test_a_socket_the_kernel_opened_is_linked_where_only_nbgrader_reaches_it():
    places = KernelPlaces.make(None, kernel_uid())
    try:
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(places.sockets / "kernel-ipc-1"))
            server.listen()
            if places.owner is not None:
                os.chown(places.sockets / "kernel-ipc-1", places.owner, places.owner)
            assert places.link_sockets([1, 2]) == [2]
            linked = places.host_socket_prefix + "-1"
            with socket.socket(socket.AF_UNIX) as client:
                client.connect(linked)
    finally:
        places.remove()


def test_without_bubblewrap_no_kernel_is_confined_and_none_runs_unless_allowed(monkeypatch):
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable))
    with pytest.raises(ConfinementUnavailable, match="bubblewrap is not installed"):
        choose_kernel_confinement(unconfined_allowed=False)
    allowed = choose_kernel_confinement(unconfined_allowed=True)
    assert allowed == KernelConfinement(UNCONFINED, missing="bubblewrap is not installed")


def test_where_bubblewrap_runs_it_confines_every_kernel():
    assert choose_kernel_confinement(unconfined_allowed=True).mode == BUBBLEWRAP


def test_an_installed_copy_of_the_grader_inside_the_environment_is_hidden(monkeypatch, tmp_path):
    installed = tmp_path / "site-packages" / "grader"
    installed.mkdir(parents=True)
    spec = SimpleNamespace(submodule_search_locations=[str(installed)])
    monkeypatch.setattr(kernel_confinement, "kernel_installation", lambda: [tmp_path])
    monkeypatch.setattr(kernel_confinement.importlib.util, "find_spec", lambda name: spec)
    places = KernelPlaces.make(None, None)
    try:
        command = confined_command(KernelConfinement(BUBBLEWRAP), places, ["python"])
    finally:
        places.remove()
    assert command[command.index(str(installed)) - 1] == "--tmpfs"
