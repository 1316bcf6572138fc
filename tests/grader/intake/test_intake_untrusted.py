"""A submission's files are read as an untrusted tree: regular files inside it, never a link."""

import os
import socket
import stat
import time

import pytest

from grader.intake.entries import course_files, open_entry, reopen, shared
from grader.intake.untrusted import NOTEBOOK_BYTES, SUBMISSION_BYTES, Folder, Refused

pytestmark = []

SECRET = b"the course's solution"


@pytest.fixture
def class_folder(tmp_path):
    """A class folder holding ada's folder, and a secret file outside every submission."""
    (tmp_path / "ada").mkdir()
    (tmp_path / "ada" / "answer.py").write_bytes(b"x = 1\n")
    (tmp_path / "secret.py").write_bytes(SECRET)
    return tmp_path


def test_a_regular_file_inside_the_submission_is_read(class_folder):
    with Folder.open(str(class_folder), "ada") as folder:
        assert folder.read("answer.py", 100) == b"x = 1\n"
        assert folder.kind("answer.py") == "file"
        assert folder.kind("nothing.py") is None


def test_a_link_to_a_file_outside_is_refused_and_never_read(class_folder):
    os.symlink(class_folder / "secret.py", class_folder / "ada" / "linked.py")
    with Folder.open(str(class_folder), "ada") as folder:
        assert folder.kind("linked.py") == "link"
        with pytest.raises(Refused, match=r"linked\.py is a link to another file"):
            folder.read("linked.py", 100)


def test_a_relative_link_to_a_classmate_is_refused(class_folder):
    (class_folder / "bob").mkdir()
    (class_folder / "bob" / "answer.py").write_bytes(SECRET)
    os.symlink("../bob/answer.py", class_folder / "ada" / "copied.py")
    with Folder.open(str(class_folder), "ada") as folder, pytest.raises(Refused):
        folder.read("copied.py", 100)


def test_a_linked_folder_on_the_way_is_refused(class_folder):
    os.symlink(class_folder, class_folder / "ada" / "up")
    with pytest.raises(Refused, match="up is a link"):
        Folder.open(str(class_folder), "ada/up")


def test_a_path_that_climbs_out_is_refused(class_folder):
    with pytest.raises(Refused, match="leads out"):
        Folder.open(str(class_folder), "ada/..")


def test_the_folder_the_instructor_names_may_itself_be_a_link(class_folder, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("mounted") / "class"
    os.symlink(class_folder, elsewhere)
    with Folder.open(str(elsewhere), "ada") as folder:
        assert folder.read("answer.py", 100) == b"x = 1\n"


def test_a_named_pipe_is_refused_at_once_without_waiting_for_a_writer(class_folder):
    os.mkfifo(class_folder / "ada" / "pipe.ipynb")
    started = time.monotonic()
    with Folder.open(str(class_folder), "ada") as folder, pytest.raises(Refused, match="pipe"):
        folder.read("pipe.ipynb", 100)
    assert time.monotonic() - started < 1


def test_a_socket_is_refused(class_folder):
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(class_folder / "ada" / "socket.py"))
        expected = "socket.py is a socket"
        with (
            Folder.open(str(class_folder), "ada") as folder,
            pytest.raises(Refused, match=expected),
        ):
            folder.read("socket.py", 100)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can make a device node")
def test_a_device_node_is_refused_and_not_read(class_folder):
    # /dev/zero's numbers: read, it would never end.
    os.mknod(class_folder / "ada" / "zero.ipynb", stat.S_IFCHR | 0o644, os.makedev(1, 5))
    with Folder.open(str(class_folder), "ada") as folder, pytest.raises(Refused, match="device"):
        folder.read("zero.ipynb", NOTEBOOK_BYTES)


def test_a_file_over_its_cap_is_refused_from_its_size_without_being_read(class_folder):
    huge = class_folder / "ada" / "huge.ipynb"
    with huge.open("wb") as stream:
        stream.truncate(300_000_000)  # sparse: no disk, and a read would take seconds
    started = time.monotonic()
    expected = r"huge\.ipynb is larger than 8 MB.*Clear its outputs"
    with Folder.open(str(class_folder), "ada") as folder, pytest.raises(Refused, match=expected):
        folder.read("huge.ipynb", NOTEBOOK_BYTES)
    assert time.monotonic() - started < 1


def test_a_submission_is_read_within_one_budget_for_all_its_files(class_folder):
    part = SUBMISSION_BYTES // 3 + 1
    for number in range(3):
        (class_folder / "ada" / f"part-{number}.py").write_bytes(b"#" * part)
    with Folder.open(str(class_folder), "ada") as folder:
        folder.read("part-0.py", part)
        folder.read("part-1.py", part)
        with pytest.raises(Refused, match="larger than 40 MB in all"):
            folder.read("part-2.py", part)


def test_a_search_lists_links_without_entering_them_and_keeps_to_its_bounds(class_folder):
    upload = class_folder / "ada"
    (upload / "deep" / "deeper").mkdir(parents=True)
    (upload / "deep" / "deeper" / "work.ipynb").write_bytes(b"{}")
    os.symlink(class_folder, upload / "loop")
    with Folder.open(str(class_folder), "ada") as folder:
        everything = {(entry.path, entry.kind) for entry in folder.search()}
        shallow = {entry.path for entry in folder.search(depth=1)}
        few = folder.search(entries=2)
    assert ("loop", "link") in everything
    assert not any(path.startswith("loop/") for path, _ in everything)
    assert ("deep/deeper/work.ipynb", "file") in everything
    assert "deep/deeper" in shallow and "deep/deeper/work.ipynb" not in shallow
    assert len(few) == 2


def test_a_hard_link_to_a_course_file_is_refused_and_any_other_is_read_and_said(class_folder):
    """`lstat` and O_NOFOLLOW take a hard link for a plain file: its inode says what it is."""
    course = class_folder / "course"
    course.mkdir()
    (course / "solution.py").write_bytes(SECRET)
    os.link(course / "solution.py", class_folder / "ada" / "solution.py")
    os.link(class_folder / "secret.py", class_folder / "ada" / "shared.py")
    with Folder.open(str(class_folder), "ada") as folder:
        folder.course_files = course_files([course])
        with pytest.raises(Refused, match=r"solution\.py is a hard link to a file of the course"):
            folder.read("solution.py", 100)
        assert folder.read("answer.py", 100) == b"x = 1\n" and folder.shared == []
        assert folder.read("shared.py", 100) == SECRET
        assert folder.shared == [shared("shared.py", 2)]


def test_the_file_checked_is_the_file_read_whatever_the_name_becomes(class_folder):
    """The name is looked up once: a swap after the look-up reads the file that was checked."""
    ada = class_folder / "ada"
    with Folder.open(str(class_folder), "ada") as folder:
        handle, status = open_entry(folder.descriptor, "answer.py")
        try:
            os.rename(ada / "answer.py", ada / "old.py")
            os.symlink(class_folder / "secret.py", ada / "answer.py")
            with os.fdopen(reopen(handle, os.O_RDONLY), "rb") as stream:
                assert stream.read() == b"x = 1\n"
        finally:
            os.close(handle)
    assert stat.S_ISREG(status.st_mode)


def test_a_pipe_swapped_in_is_never_opened(class_folder):
    os.mkfifo(class_folder / "ada" / "07.ipynb")
    started = time.monotonic()
    with (
        Folder.open(str(class_folder), "ada") as folder,
        pytest.raises(Refused, match="is a named pipe"),
    ):
        folder.read("07.ipynb", 100)
    assert time.monotonic() - started < 5
