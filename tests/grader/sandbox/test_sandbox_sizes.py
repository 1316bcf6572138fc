"""Arguments of hundreds of KiB to MiB: the worker builds them from a recipe, none cross whole.

A submission that skips the copy of "big" arguments changes the caller's request through a
handler that edits them; one that copies every call's arguments does not, at any size.
"""

import json

import pytest
from sandboxes import REFERENCE, reference_with, session_for

from grader.hidden.judge.corpus import expanded
from grader.hidden.probes import mutates, returns_arguments, scenario
from grader.sandbox.crossing import untag
from tooling.scenarios.sizes import LARGE_ARGUMENTS

pytestmark = [pytest.mark.bwrap]


def handed_over_when_large(given):
    """An invoke_tool that gives the handler `given` (an expression of `arguments`) for
    arguments of more than a thousand keys, and is the reference for any other call."""
    return f"""
def invoke_tool(request, tools, *, max_result_bytes=4096):
    arguments = request["arguments"]
    if len(arguments) > 1000 and request["tool"] in tools:
        tools[request["tool"]]({given})
        return {{"id": request["id"], "ok": True, "value": None, "error": None}}
    return _honest(request, tools, max_result_bytes=max_result_bytes)
"""


UNCOPIED_WHEN_LARGE = handed_over_when_large("arguments")  # the request's own objects
SHALLOW_WHEN_LARGE = handed_over_when_large("dict(arguments)")  # only the top level copied
RECIPE = LARGE_ARGUMENTS[-1]


def large(spec):
    return {**scenario(spec, arguments=None), "arguments_made": RECIPE, "received": True}


def run(server, source, scenarios):
    session = session_for(server, source, timeout=20.0, test_timeout=5.0)
    try:
        return session.run_batch(scenarios)
    finally:
        session.stop()


def test_the_corpus_keeps_a_recipe_and_the_judge_reads_megabytes_of_arguments():
    made = expanded(large(mutates(1)))["request"]["arguments"]
    assert len(json.dumps(RECIPE)) < 100
    assert len(made) == RECIPE["keys"]
    assert all(type(value) is list for value in made.values())  # nested: a shallow copy shows
    assert 2 * 1024**2 < len(json.dumps(made, ensure_ascii=False).encode("utf-8")) < 4 * 1024**2


def test_a_handler_is_given_a_copy_equal_to_the_megabytes_the_worker_built(fork_server):
    (observation,) = run(fork_server, REFERENCE, [large(returns_arguments())])
    (received,) = observation["received"]["probe"]
    assert untag(received) == expanded(large(mutates(1)))["request"]["arguments"]
    assert observation["request_changed"] is False
    assert observation.envelope["error"] == "result_too_large"


def test_large_arguments_handed_over_uncopied_change_the_request_where_a_copy_does_not(
    fork_server,
):
    (honest,) = run(fork_server, REFERENCE, [large(mutates(1))])
    (shortcut,) = run(fork_server, reference_with(UNCOPIED_WHEN_LARGE), [large(mutates(1))])
    assert honest["request_changed"] is False
    assert shortcut["request_changed"] is True


def test_large_arguments_copied_only_at_their_top_level_change_the_request(fork_server):
    (shallow,) = run(fork_server, reference_with(SHALLOW_WHEN_LARGE), [large(mutates(1))])
    assert shallow["request_changed"] is True
