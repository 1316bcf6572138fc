"""The call counter explorer counts one handler run per press, and speaks plainly on errors."""

from builders import part, reference, retrying_call_once, unfinished

from course.widgets.no_retry import no_retry_explorer

pytestmark = []


def choose(explorer, starts_with):
    pick = part(explorer, "no-retry-behaviour")
    pick.value = next(option for option in pick.options if option.startswith(starts_with))


def test_a_succeeding_handler_runs_once_per_press():
    explorer = no_retry_explorer({"call_once": reference("call_once")})
    assert "no-retry-explorer" in explorer._dom_classes
    part(explorer, "no-retry-call").click()
    assert "(True," in part(explorer, "no-retry-result").value
    assert "<b>1</b>" in part(explorer, "no-retry-counter").value


def test_the_flaky_handler_fails_then_succeeds_one_run_per_press():
    explorer = no_retry_explorer({"call_once": reference("call_once")})
    choose(explorer, "flaky")
    part(explorer, "no-retry-call").click()
    assert "(False, TimeoutError" in part(explorer, "no-retry-result").value
    assert "exactly once" in part(explorer, "no-retry-counter").value
    part(explorer, "no-retry-call").click()
    assert "(True," in part(explorer, "no-retry-result").value
    assert "<b>2</b>" in part(explorer, "no-retry-counter").value


def test_a_retrying_call_once_is_shown_as_a_retry():
    explorer = no_retry_explorer({"call_once": retrying_call_once})
    choose(explorer, "raises KeyError")
    part(explorer, "no-retry-call").click()
    assert "3 times: that is a retry" in part(explorer, "no-retry-counter").value


def test_changing_the_behaviour_starts_the_count_again():
    explorer = no_retry_explorer({"call_once": reference("call_once")})
    part(explorer, "no-retry-call").click()
    choose(explorer, "raises NotFoundError")
    assert "<b>0</b>" in part(explorer, "no-retry-counter").value
    assert part(explorer, "no-retry-result").value == ""


def test_an_unfinished_call_once_is_told_plainly():
    explorer = no_retry_explorer({"call_once": unfinished})
    part(explorer, "no-retry-call").click()
    assert "not finished yet" in part(explorer, "no-retry-result").value
    assert "did not run it" in part(explorer, "no-retry-counter").value


def test_a_call_once_that_lets_the_exception_escape_is_told_plainly():
    explorer = no_retry_explorer(
        {"call_once": lambda handler, arguments: (True, handler(arguments))}
    )
    choose(explorer, "raises NotFoundError")
    part(explorer, "no-retry-call").click()
    assert "let <code>NotFoundError</code> escape" in part(explorer, "no-retry-result").value
