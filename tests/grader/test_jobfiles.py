"""A job's input carries every limit and submission it was given, one submission a line."""

from dataclasses import fields

from grader.jobfiles import copy_job_input, limits_data, read_job_input, write_job_input
from grader.model import Limits

pytestmark = []

SETTINGS = {"limits": limits_data(Limits()), "isolation": "auto"}


def entry(key):
    unit = {"label": f"s{key}", "filename": f"s{key}.py", "source": f"N = {key}\n"}
    return {"key": key, "units": [unit], "error": None}


def test_the_job_input_names_every_limit():
    assert set(limits_data(Limits())) == {field.name for field in fields(Limits)}


def test_the_job_rebuilds_the_limits_it_was_given():
    limits = Limits(timeout=3.5, test_timeout=1.25, output_limit=2048, memory_mb=256, processes=8)
    assert Limits(**limits_data(limits)) == limits


def test_a_job_input_is_written_and_read_one_submission_at_a_time(tmp_path):
    path = tmp_path / "job-0.jsonl"
    write_job_input(path, SETTINGS, (entry(key) for key in range(3)))
    assert len(path.read_text(encoding="utf-8").splitlines()) == 1 + 3  # settings, then one each
    settings, read = read_job_input(path)
    assert settings == SETTINGS
    assert next(read) == entry(0)  # read lazily: the rest is still on disk
    assert list(read) == [entry(1), entry(2)]


def test_a_new_jobs_input_keeps_only_the_submissions_left(tmp_path):
    first, again = tmp_path / "job-0.jsonl", tmp_path / "job-0-again-1.jsonl"
    write_job_input(first, SETTINGS, (entry(key) for key in (0, 2, 4, 6)))
    copy_job_input(first, again, {4, 6})
    settings, entries = read_job_input(again)
    assert settings == SETTINGS
    assert list(entries) == [entry(4), entry(6)]
