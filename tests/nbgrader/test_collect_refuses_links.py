"""nbgrader's collect, as the course configures it, copies no link a student left in the exchange.

The inbound folder is writable by every student and collect copies as the instructor: a link
there would hand collect whatever it names (the solutions, the gradebook) as that student's work.
Collect refuses a folder in another student's name and writes the receipt lateness is counted
from, from change times no student can set back, never the student's own timestamp.txt.
"""

import getpass
import logging
import os
from datetime import UTC, datetime, timedelta

import pytest
from nbgrader.coursedir import CourseDirectory
from traitlets.config.loader import PyFileConfigLoader

from grader.gradebook.late import parse_time
from grader.gradebook.times import TIMESTAMP_FILE
from grader.integrations.nbgrader_exchange import CollectWithoutLinks
from grader.paths import PROJECT_ROOT

pytestmark = [pytest.mark.kernel, pytest.mark.nbgrader, pytest.mark.bwrap, pytest.mark.slow]

SECRET = "the instructor's solution"


def collect_plugin(tmp_path, caplog, inbound=None, allow_other_owners=True):
    """Return the course's collect, with nbgrader's record of the folder `inbound` if given."""
    coursedir = CourseDirectory(root=str(tmp_path / "course"))
    caplog.set_level(logging.WARNING)
    collect = CollectWithoutLinks(coursedir=coursedir, allow_other_owners=allow_other_owners)
    collect.log = logging.getLogger("collect")
    collect.src_records = [] if inbound is None else [collect._path_to_record(str(inbound))]
    return collect


def test_the_course_makes_this_collect_the_exchanges():
    config = PyFileConfigLoader("nbgrader_config.py", path=str(PROJECT_ROOT)).load_config()
    assert config.ExchangeFactory.collect == (
        "grader.integrations.nbgrader_exchange.CollectWithoutLinks"
    )


def test_links_pipes_and_linked_folders_in_a_submission_are_left_out(tmp_path, caplog):
    secret = tmp_path / "solution.ipynb"
    secret.write_text(SECRET, encoding="utf-8")
    inbound = tmp_path / "inbound" / "ada+bounded_results+2026-03-01 10:00:00 UTC"
    inbound.mkdir(parents=True)
    (inbound / "01-the-envelope.ipynb").write_text("{}", encoding="utf-8")
    (inbound / "07-invoke-tool.ipynb").symlink_to(secret)
    (inbound / "everything").symlink_to(tmp_path)
    os.mkfifo(inbound / "pipe.ipynb")
    dest = tmp_path / "submitted" / "ada" / "bounded_results"
    collect_plugin(tmp_path, caplog).do_copy(str(inbound), str(dest))
    assert sorted(p.name for p in dest.iterdir()) == ["01-the-envelope.ipynb", TIMESTAMP_FILE]
    assert not any(SECRET in p.read_text(encoding="utf-8") for p in dest.rglob("*.ipynb"))
    left_out = [r.getMessage() for r in caplog.records if "Not collected" in r.getMessage()]
    assert len(left_out) == 3


def test_a_submission_that_is_itself_a_link_is_not_collected(tmp_path, caplog):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "07-invoke-tool.ipynb").write_text(SECRET, encoding="utf-8")
    inbound = tmp_path / "inbound"
    inbound.mkdir()
    link = inbound / "ada+bounded_results+2026-03-01 10:00:00 UTC"
    link.symlink_to(tmp_path / "elsewhere")
    dest = tmp_path / "submitted" / "ada" / "bounded_results"
    collect_plugin(tmp_path, caplog).do_copy(str(link), str(dest))
    assert not dest.exists()
    assert any("is a link, not a folder" in r.getMessage() for r in caplog.records)


def test_the_receipt_is_the_copys_change_time_never_the_students_timestamp(tmp_path, caplog):
    """The folder's name and the student's timestamp.txt say 2020; the files changed today."""
    inbound = tmp_path / "inbound" / f"{getpass.getuser()}+bounded_results+2020-01-01 00:00:00 UTC"
    inbound.mkdir(parents=True)
    (inbound / "07-invoke-tool.ipynb").write_text("{}", encoding="utf-8")
    (inbound / TIMESTAMP_FILE).write_text("2020-01-01 00:00:00 UTC", encoding="utf-8")
    for path in (inbound, *inbound.iterdir()):
        os.utime(path, (0, 0))  # file times set back too: they move the change time to now
    before = datetime.now(UTC) - timedelta(seconds=5)
    dest = tmp_path / "submitted" / "ada" / "bounded_results"
    collect_plugin(tmp_path, caplog, inbound, allow_other_owners=False).do_copy(
        str(inbound), str(dest)
    )
    received = parse_time((dest / TIMESTAMP_FILE).read_text(encoding="utf-8"))
    assert before <= received <= datetime.now(UTC)


def test_a_folder_in_another_students_name_is_refused_unless_allowed(tmp_path, caplog):
    inbound = tmp_path / "inbound" / "nobody+bounded_results+2026-03-01 10:00:00 UTC"
    inbound.mkdir(parents=True)
    (inbound / "07-invoke-tool.ipynb").write_text("{}", encoding="utf-8")
    dest = tmp_path / "submitted" / "nobody" / "bounded_results"
    collect_plugin(tmp_path, caplog, inbound, allow_other_owners=False).do_copy(
        str(inbound), str(dest)
    )
    assert not dest.exists()
    assert any("not to the student it names" in r.getMessage() for r in caplog.records)
    collect_plugin(tmp_path, caplog, inbound).do_copy(str(inbound), str(dest))
    assert (dest / "07-invoke-tool.ipynb").is_file()


def test_a_folder_renamed_away_during_collect_is_not_collected_and_ends_nothing(tmp_path, caplog):
    """Its student renamed it away after nbgrader listed it: no second look-up stops collect."""
    inbound = tmp_path / "inbound" / "ada+bounded_results+2026-03-01 10:00:00 UTC"
    collect = collect_plugin(tmp_path, caplog, inbound)  # listed, then gone
    collect.inbound_path, collect.coursedir.assignment_id = str(inbound.parent), "bounded_results"
    collect.copy_files()
    assert not (tmp_path / "course" / "submitted" / "ada" / "bounded_results").exists()
    assert any("Not collected" in r.getMessage() for r in caplog.records)
