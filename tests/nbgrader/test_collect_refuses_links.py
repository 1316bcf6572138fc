"""nbgrader's collect, as the course configures it, copies no link a student left in the exchange.

The inbound folder is writable by every student and collect copies as the instructor: a link
there would hand collect whatever it names (the solutions, the gradebook) as that student's work.
"""

import logging
import os

import pytest
from nbgrader.coursedir import CourseDirectory
from traitlets.config.loader import PyFileConfigLoader

from grader.integrations.nbgrader_exchange import CollectWithoutLinks
from grader.paths import PROJECT_ROOT

pytestmark = [pytest.mark.kernel, pytest.mark.nbgrader, pytest.mark.bwrap, pytest.mark.slow]

SECRET = "the instructor's solution"


def collect_plugin(tmp_path, caplog):
    coursedir = CourseDirectory(root=str(tmp_path / "course"))
    caplog.set_level(logging.WARNING)
    collect = CollectWithoutLinks(coursedir=coursedir)
    collect.log = logging.getLogger("collect")
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
    assert sorted(p.name for p in dest.iterdir()) == ["01-the-envelope.ipynb"]
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
    assert any("is a link, not a submission" in r.getMessage() for r in caplog.records)
