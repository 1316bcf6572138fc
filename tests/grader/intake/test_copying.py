"""Copying a folder its student can still write: each entry looked up once, sizes counted first.

The attacks are those on nbgrader's collect: a notebook swapped for a link to the solutions
while it is copied, a sparse file far over the cap, a hard link, a folder in another's name.
"""

import itertools
import os
import sys
import threading
import time

import pytest

from grader.intake.copying import CopyLimits, NotCopied, copy_folder

pytestmark = []

SECRET = b"the instructor's solution"
ANSWER = b'{"cells": []}'
NOTEBOOKS = [f"0{step}-step.ipynb" for step in range(1, 9)]
LIMITS = CopyLimits(file_bytes=1_000_000, total_bytes=10_000_000)


@pytest.fixture
def inbound(tmp_path):
    """A student's inbound folder of eight notebooks, and a secret outside it."""
    (tmp_path / "solution.ipynb").write_bytes(SECRET)
    folder = tmp_path / "inbound" / "ada+bounded_results+2026-03-01 10:00:00 UTC"
    folder.mkdir(parents=True)
    for name in NOTEBOOKS:
        (folder / name).write_bytes(ANSWER)
    return folder


def copy(folder, target, limits=LIMITS, owner=None):
    return copy_folder(str(folder.parent), folder.name, str(target), limits, owner)


def test_regular_files_and_folders_are_copied_and_the_change_time_is_kept(inbound, tmp_path):
    (inbound / "data").mkdir()
    (inbound / "data" / "notes.txt").write_bytes(b"notes")
    copied = copy(inbound, tmp_path / "copy")
    assert sorted(p.name for p in (tmp_path / "copy").iterdir()) == sorted([*NOTEBOOKS, "data"])
    assert (tmp_path / "copy" / "data" / "notes.txt").read_bytes() == b"notes"
    newest = max(os.stat(p).st_ctime for p in [inbound, *inbound.rglob("*")])
    assert copied.changed == newest and copied.left_out == [] and copied.owner == os.getuid()


def test_links_pipes_and_hard_links_are_left_out_and_said(inbound, tmp_path):
    (inbound / NOTEBOOKS[0]).unlink()
    (inbound / NOTEBOOKS[0]).symlink_to(tmp_path / "solution.ipynb")
    (inbound / NOTEBOOKS[1]).unlink()
    os.link(tmp_path / "solution.ipynb", inbound / NOTEBOOKS[1])
    os.mkfifo(inbound / "pipe.ipynb")
    copied = copy(inbound, tmp_path / "copy")
    assert sorted(p.name for p in (tmp_path / "copy").iterdir()) == NOTEBOOKS[2:]
    assert [line.split(" is ")[1] for line in copied.left_out] == [
        "a link, not a file",
        "a hard link (2 names), not a file",
        "a named pipe, not a file",
    ]


def test_a_sparse_file_counts_at_its_apparent_size_before_anything_is_written(inbound, tmp_path):
    with (inbound / "huge.ipynb").open("wb") as stream:
        stream.truncate(300_000_000)  # no block on disk
    with pytest.raises(NotCopied, match="more than 10000000 bytes"):
        copy(inbound, tmp_path / "copy", CopyLimits(file_bytes=400_000_000, total_bytes=10**7))
    assert not (tmp_path / "copy" / "huge.ipynb").exists()


def test_a_folder_that_is_a_link_or_owned_by_another_is_not_copied(inbound, tmp_path):
    (inbound.parent / "bob+bounded_results+x").symlink_to(inbound)
    with pytest.raises(NotCopied, match="is a link, not a folder"):
        copy(inbound.parent / "bob+bounded_results+x", tmp_path / "copy")
    with pytest.raises(NotCopied, match="not to the student it names"):
        copy(inbound, tmp_path / "copy", owner=os.getuid() + 1)


def test_a_student_swapping_notebooks_for_links_while_it_is_copied_gets_nothing(inbound, tmp_path):
    """A racing thread swaps each notebook for a link to the solutions and back, without end.

    Whatever each copy catches, a notebook is the student's own bytes or is left out: never
    the solutions.
    """
    stop = threading.Event()

    def swap():
        while not stop.is_set():
            for name in NOTEBOOKS:
                path = inbound / name
                aside = inbound / f".{name}"
                os.rename(path, aside)
                path.symlink_to(tmp_path / "solution.ipynb")
                os.replace(aside, path)

    racer = threading.Thread(target=swap)
    # The threads take turns often, so the copies meet the links; copies go on (at least 40,
    # at most 20 s) until one has.
    switching = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    racer.start()
    left_out = 0
    deadline = time.monotonic() + 20
    try:
        for attempt in itertools.count():
            if attempt >= 40 and (left_out or time.monotonic() > deadline):
                break
            target = tmp_path / f"copy-{attempt}"
            try:
                copied = copy(inbound, target)
            except (NotCopied, FileNotFoundError):
                continue  # a name gone at the moment it was looked up: nothing copied of it
            left_out += len(copied.left_out)
            for path in target.iterdir():
                assert path.read_bytes() in (ANSWER, b""), path
    finally:
        stop.set()
        racer.join()
        sys.setswitchinterval(switching)
    assert left_out > 0  # the race was met: links were seen and left out
