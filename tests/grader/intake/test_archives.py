"""`grade` reads a hand-in zip as its lessons folder, and a zip's other entries gain nothing.

The honest zip is what the handout's hand_in.py and the browser site's hand-in cell write
(course/handin.py). Its adversarial twin holds the same notebooks plus entries that try to write
outside the grader's scratch folder (`../`, an absolute path, a link) or to slip in files that
are not notebooks; they are left out, and the twin scores exactly what the honest zip scores.
"""

import stat
import zipfile
from pathlib import Path

import pytest
from grader_cli import read_grades, run_grader

from course.handin import hand_in
from course.manifest import load_course
from grader.intake.archives import MAX_BYTES
from grader.intake.discover import discover
from grader.intake.handins import unpacking
from grader.paths import SOLUTIONS

pytestmark = []

COURSE = load_course()
ESCAPE = "escaped-by-zip.ipynb"


def honest_zip(folder, name="ada"):
    """The zip a student who finished the lesson hands in."""
    return hand_in(SOLUTIONS / COURSE.assignment, folder / f"{name}.zip").zip_path


def adversarial_zip(folder, name="eve"):
    """The honest zip's notebooks, plus entries that try to leave the unpacking folder."""
    target = folder / f"{name}.zip"
    with zipfile.ZipFile(honest_zip(folder, "eve-source")) as honest:
        members = [(info.filename, honest.read(info)) for info in honest.infolist()]
    with zipfile.ZipFile(target, "w") as archive:
        for filename, data in members:
            archive.writestr(filename, data)
        archive.writestr(f"../../{ESCAPE}", b"{}")
        archive.writestr(f"/tmp/{ESCAPE}", b"{}")
        archive.writestr(f"{COURSE.assignment}/..\\..\\{ESCAPE}", b"{}")
        archive.writestr(f"{COURSE.assignment}/.hidden.ipynb", b"{}")
        archive.writestr(f"{COURSE.assignment}/run-me.py", b"import os\n")
        link = zipfile.ZipInfo(f"{COURSE.assignment}/linked.ipynb")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
    return target


def test_an_honest_zip_unpacks_to_the_lesson_notebooks_under_its_own_name(tmp_path):
    with unpacking() as zips:
        [found] = discover([honest_zip(tmp_path)], COURSE, zips.open)
        names = sorted(path.name for path in Path(found.path).iterdir())
    assert (found.student, found.kind, found.source) == (
        "ada",
        "lessons",
        str(tmp_path / "ada.zip"),
    )
    assert names == sorted(step.notebook for step in COURSE.all_steps)


def test_the_adversarial_zip_writes_nothing_outside_and_keeps_only_notebooks(tmp_path):
    zip_path = adversarial_zip(tmp_path)
    with unpacking() as zips:
        [found] = discover([zip_path], COURSE, zips.open)
        kept = sorted(p.name for p in Path(found.path).rglob("*"))
        scratch = zips.scratch
        # Where an entry could land: in the scratch folder, or beside a folder above it (each
        # `../` climbs one, and `/tmp/` names one). Not anywhere below /tmp: walking it took
        # seconds, and failed when another run removed its own folders meanwhile.
        landed = [*scratch.rglob(ESCAPE), *(p / ESCAPE for p in scratch.parents)]
        assert not [p for p in landed if p.exists()], "an entry escaped the scratch folder"
    assert kept == sorted(step.notebook for step in COURSE.all_steps)
    assert not (tmp_path / ESCAPE).exists()
    assert not scratch.exists(), "the scratch folder was left behind"


def test_a_zip_larger_than_the_limit_is_graded_as_holding_nothing(tmp_path, capsys):
    target = tmp_path / "bomb.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{COURSE.assignment}/01-the-envelope.ipynb", b"0" * (MAX_BYTES + 1))
    with unpacking() as zips:
        [found] = discover([target], COURSE, zips.open)
        assert [p.name for p in Path(found.path).iterdir()] == [COURSE.assignment]
        assert list((Path(found.path) / COURSE.assignment).iterdir()) == []
    assert "bomb.zip could not be unpacked (more than 20 MiB unpacked)" in capsys.readouterr().err


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Grade an honest zip, its adversarial twin and a broken zip in one batch."""
    folder = tmp_path_factory.mktemp("zips")
    (folder / "broken.zip").write_bytes(b"PK\x03\x04 this is not a zip")
    paths = [honest_zip(folder), adversarial_zip(folder), folder / "broken.zip"]
    out = tmp_path_factory.mktemp("out")
    return run_grader("grade", *paths, "--out", out), read_grades(out), folder


@pytest.mark.bwrap
def test_grade_scores_the_hand_in_zip_as_the_notebooks_in_it(graded):
    completed, grades, _folder = graded
    assert completed.returncode == 0, completed.stderr
    assert grades["ada"]["score"] == "70.00"


@pytest.mark.bwrap
def test_the_adversarial_twin_scores_what_the_honest_zip_scores_and_nothing_escaped(graded):
    completed, grades, folder = graded
    twin = {key: value for key, value in grades["eve"].items() if key != "student"}
    honest = {key: value for key, value in grades["ada"].items() if key != "student"}
    assert twin == honest
    assert "eve.zip: left out 6 entries that are not notebooks or whose names" in completed.stderr
    assert not list(folder.parent.rglob(ESCAPE))


@pytest.mark.bwrap
def test_a_broken_zip_is_that_students_result_not_a_stop_of_the_batch(graded):
    completed, grades, _folder = graded
    assert grades["broken"]["score"] == "0.00"
    assert grades["broken"]["status"] != "completed"
    assert "broken.zip could not be unpacked (BadZipFile)" in completed.stderr
