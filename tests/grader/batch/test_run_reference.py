"""The reference and other correct styles pass every hidden test, with any number of jobs."""

import pytest

from grader.batch.run import RunSettings, hidden_tests, run_submissions
from grader.model import CodeUnit, Submission
from grader.paths import PROJECT_ROOT

pytestmark = []

REFERENCE_PATH = PROJECT_ROOT / "fixtures/submissions/correct/reference.py"
REFERENCE = REFERENCE_PATH.read_text(encoding="utf-8")

# A correct solution in a different style: a class, constants, a JSON round trip for copying,
# its own vocabulary walk, and logging of the exception to a private channel.
ANOTHER_STYLE = """
import json
import logging
import math

from course.supplied import InvalidInputError, NotFoundError, PermissionDeniedError

LOG = logging.getLogger("tools")
CODES = ((InvalidInputError, "invalid_input"), (PermissionDeniedError, "permission_denied"),
         (NotFoundError, "not_found"))


def in_vocabulary(value, open_ids=()):
    if value is None or type(value) in (bool, int, str):
        return True
    if type(value) is float:
        return math.isfinite(value)
    if id(value) in open_ids or type(value) not in (list, dict):
        return False
    inner = open_ids + (id(value),)
    if type(value) is dict:
        return all(type(k) is str and in_vocabulary(v, inner) for k, v in value.items())
    return all(in_vocabulary(item, inner) for item in value)


class Invoker:
    def __init__(self, budget):
        self.budget = budget

    def __call__(self, request, tools):
        name = request["tool"]
        if name not in tools:
            return self.fail(request, "unknown_tool")
        arguments = json.loads(json.dumps(request["arguments"]))
        try:
            result = tools[name](arguments)
        except Exception as error:
            LOG.exception("tool %s failed", name)
            code = next((c for cls, c in CODES if isinstance(error, cls)), "tool_failed")
            return self.fail(request, code)
        try:
            if not in_vocabulary(result):
                raise TypeError("outside")
            data = json.dumps(result, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except (TypeError, ValueError, RecursionError):
            return self.fail(request, "invalid_result")
        if len(data) > self.budget:
            return self.fail(request, "result_too_large")
        return {"id": request["id"], "ok": True, "value": json.loads(data), "error": None}

    @staticmethod
    def fail(request, code):
        return {"error": code, "value": None, "ok": False, "id": request["id"]}


def invoke_tool(request, tools, *, max_result_bytes=4096):
    return Invoker(max_result_bytes)(request, tools)
"""


def single_file(name, source):
    return Submission(name, f"{name}.py", "python", (CodeUnit(name, f"{name}.py", source),))


@pytest.fixture(scope="module")
def catalogue():
    return hidden_tests()


@pytest.fixture(scope="module")
def batch():
    """Three submissions: the reference, a second correct style, and a buggy one."""
    buggy = REFERENCE.replace('"ok": True,', '"ok": 1,')
    return [
        single_file("ref", REFERENCE),
        single_file("style", ANOTHER_STYLE),
        single_file("bug", buggy),
    ]


@pytest.fixture(scope="module")
def one_job(batch):
    return run_submissions(batch, RunSettings(jobs=1))


@pytest.mark.bwrap
def test_reference_passes_every_hidden_test(one_job, catalogue):
    result = one_job[0]
    assert result.status == "completed"
    assert [o.test_id for o in result.outcomes] == [t.test_id for t in catalogue]
    assert [o.status for o in result.outcomes if o.status != "passed"] == []


@pytest.mark.bwrap
def test_another_correct_style_passes_every_hidden_test(one_job):
    failed = [o.test_id for o in one_job[1].outcomes if o.status != "passed"]
    assert failed == []


@pytest.mark.bwrap
def test_outcomes_carry_the_catalogue_category_and_description(one_job, catalogue):
    described = [(o.test_id, o.category, o.description) for o in one_job[2].outcomes]
    assert described == [(t.test_id, t.category, t.description) for t in catalogue]


@pytest.mark.bwrap
def test_results_come_back_in_input_order(batch, one_job):
    assert [r.submission.student for r in one_job] == ["ref", "style", "bug"]


@pytest.mark.bwrap
def test_results_handed_on_are_reported_once_each_and_not_kept(batch):
    seen = []
    results = run_submissions(batch, RunSettings(jobs=2), on_result=seen.append)
    assert sorted(r.submission.student for r in seen) == ["bug", "ref", "style"]
    assert results == [None, None, None]  # a class's outcomes do not pile up in memory


@pytest.mark.bwrap
def test_two_jobs_give_the_same_results_as_one(batch, one_job):
    two_jobs = run_submissions(batch, RunSettings(jobs=2))
    assert two_jobs == one_job


def test_no_submissions_give_no_results():
    assert run_submissions([], RunSettings(jobs=2)) == []
