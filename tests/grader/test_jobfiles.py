"""A job's input carries every limit of grader.model.Limits, and the job rebuilds them exactly."""

from dataclasses import fields

from grader.jobfiles import limits_data
from grader.model import Limits


def test_the_job_input_names_every_limit():
    assert set(limits_data(Limits())) == {field.name for field in fields(Limits)}


def test_the_job_rebuilds_the_limits_it_was_given():
    limits = Limits(timeout=3.5, test_timeout=1.25, output_limit=2048, memory_mb=256, processes=8)
    assert Limits(**limits_data(limits)) == limits
