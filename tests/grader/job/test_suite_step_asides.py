"""A hidden test may step aside only for a category that asked and judged that very scenario."""

from grader.job.suite import Verdict, failure_detail, honour_step_asides
from grader.model import NOT_JUDGED
from grader.sandbox.inside.picture import Opaque, Unhashed
from grader.sandbox.values import shown

pytestmark = []


def stepping_aside(category, scenario, asked=()):
    return Verdict(NOT_JUDGED, "another category decides", set(asked), (category, scenario))


def test_a_step_aside_stands_when_the_named_category_judged_that_scenario():
    verdicts = [stepping_aside("envelope", "s1"), Verdict("failed", "", {"s1"})]
    honoured = honour_step_asides(["ownership", "envelope"], verdicts)
    assert [verdict.status for verdict in honoured] == [NOT_JUDGED, "failed"]


def test_a_step_aside_for_a_scenario_the_category_never_asked_fails_the_test():
    verdicts = [stepping_aside("envelope", "s1"), Verdict("passed", "", {"s2"})]
    [asker, _] = honour_step_asides(["unicode_boundary", "envelope"], verdicts)
    assert asker.status == "failed"
    assert asker.detail.startswith("stepped aside for envelope, which did not judge")


def test_a_category_that_stepped_aside_itself_judged_nothing():
    verdicts = [stepping_aside("envelope", "s1"), stepping_aside("ownership", "s2", asked={"s1"})]
    honoured = honour_step_asides(["ownership", "envelope"], verdicts)
    assert [verdict.status for verdict in honoured] == ["failed", "failed"]


def test_another_categorys_test_asking_the_scenario_does_not_count():
    verdicts = [stepping_aside("envelope", "s1"), Verdict("passed", "", {"s1"})]
    [asker, _] = honour_step_asides(["vocabulary", "error_codes"], verdicts)
    assert asker.status == "failed"


def test_a_value_too_large_to_write_is_shown_within_bounds_without_failing():
    huge = ["x" * 20_000] * 19_900
    assert len(shown(huge)) <= 300
    assert shown(10**5000) == "<an int of about 5001 digits>"
    assert shown(Opaque("Stamp")) == "<Stamp>"
    assert shown(Unhashed("set", (1, 2))) == "<set of (1, 2)>"


def test_an_assertions_detail_never_writes_a_students_value_whole():
    error = AssertionError({"id": 10**5000, "ok": True, "value": ["y" * 50_000] * 1000})
    detail = failure_detail(error)
    assert "int of about 5001 digits" in detail and len(detail) <= 2000
