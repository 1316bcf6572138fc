"""Hostile submissions get the right labels and never change another submission's result."""

from collections import Counter

import pytest

from grader.batch.run import RunSettings, hidden_tests, run_submissions
from grader.model import CodeUnit, Limits, Submission
from grader.paths import PROJECT_ROOT
from grader.sandbox.containment import containment_available

pytestmark = [pytest.mark.bwrap]

REFERENCE = (PROJECT_ROOT / "fixtures/submissions/correct/reference.py").read_text(encoding="utf-8")
# A submission is stopped at 6 times its time limit on the wall clock (at least 30 s): at 10 s that
# is a minute, which a crowded machine (eight busy programs beside the run) does not reach.
SETTINGS = RunSettings(jobs=2, limits=Limits(timeout=10.0, test_timeout=0.4, output_limit=4096))

HOSTILE = {
    "loop_at_import": "while True:\n    pass\n",
    "loop_in_call": REFERENCE + "\ndef invoke_tool(request, tools, **options):\n    while True:\n"
    "        pass\n",
    "exit_in_call": REFERENCE + "\nimport os\n\ndef invoke_tool(request, tools, **options):\n"
    "    os._exit(3)\n",
    "exit_on_empty_id": REFERENCE + "\nimport os\n_invoke = invoke_tool\n\n"
    "def invoke_tool(request, tools, **options):\n"
    "    if request['id'] == '':\n        os._exit(3)\n"
    "    return _invoke(request, tools, **options)\n",
    "sys_exit_at_import": "import sys\nsys.exit(0)\n" + REFERENCE,
    "prints_megabytes": "print('x' * 10_000_000)\n" + REFERENCE,
    "reads_stdin": "import sys\nDATA = sys.stdin.read()\n" + REFERENCE,
    "warns_and_writes_stderr": "import sys, warnings\nwarnings.warn('careful')\n"
    "print('a note', file=sys.stderr)\n" + REFERENCE,
    "looks_for_grader_files": "import glob, os, tempfile\n"
    "SEEN = glob.glob(os.path.join(tempfile.gettempdir(), 'grader-*'))\n" + REFERENCE + "\n"
    "if SEEN:\n    def invoke_tool(request, tools, **options):\n        return SEEN\n",
    "lists_other_processes": "import glob\nSEEN = glob.glob('/proc/[0-9]*/cmdline')[2:]\n"
    + REFERENCE,
    "syntax_error": "def invoke_tool(request, tools:\n    pass\n",
    "no_invoke_tool": "def invoke(request, tools):\n    return {}\n",
    "patches_json_and_builtins": REFERENCE
    + (
        "\nimport builtins, os, sys, io\n"
        "_dumps, _loads = json.dumps, json.loads\n"
        "def encode_json(value):\n"
        "    check_json_value(value)\n"
        "    return _dumps(value, ensure_ascii=False, allow_nan=False)\n"
        "def fresh_value(text):\n    return _loads(text)\n"
        "json.dumps = lambda *a, **k: 'patched'\njson.loads = lambda *a, **k: 'patched'\n"
        "json.JSONDecoder = None\nbuiltins.repr = lambda x: 'patched'\n"
        "builtins.print = None\nos.write = os.read = None\nsys.stdout = io.StringIO()\n"
    ),
}


def single_file(name, source):
    return Submission(name, f"{name}.py", "python", (CodeUnit(name, f"{name}.py", source),))


@pytest.fixture(scope="module")
def results():
    """One batch: the reference before and after every hostile submission, and an unreadable one."""
    submissions = [single_file("first", REFERENCE)]
    submissions += [single_file(name, source) for name, source in HOSTILE.items()]
    submissions.append(Submission("unreadable", "bin.py", "python", (), error="It is not text."))
    submissions.append(single_file("last", REFERENCE))
    return {result.submission.student: result for result in run_submissions(submissions, SETTINGS)}


def statuses(result):
    return Counter(outcome.status for outcome in result.outcomes)


def test_reference_results_are_untouched_by_hostile_neighbours(results):
    count = len(hidden_tests())
    untouched = ("first", "last", "reads_stdin", "warns_and_writes_stderr")
    for name in (*untouched, "patches_json_and_builtins"):
        assert results[name].status == "completed", (name, results[name].reason)
        assert statuses(results[name]) == {"passed": count}, name


def test_workers_see_neither_grader_files_nor_other_processes(results):
    assert containment_available()
    assert statuses(results["looks_for_grader_files"]) == {"passed": len(hidden_tests())}
    # Listing /proc (other processes, the worker's own descriptors) is refused outright.
    assert statuses(results["lists_other_processes"]) == {"forbidden": len(hidden_tests())}


def test_infinite_loop_at_import_is_a_timeout_for_every_test(results):
    result = results["loop_at_import"]
    assert result.status == "timeout"
    assert set(statuses(result)) == {"timeout"}
    assert "time limit" in result.reason


def test_infinite_loop_in_invoke_tool_times_out_within_the_budget(results):
    result = results["loop_in_call"]
    assert result.status == "timeout"
    assert set(statuses(result)) == {"timeout"}


def test_os_exit_in_invoke_tool_is_a_crash(results):
    result = results["exit_in_call"]
    assert result.outcomes[0].status == "crash"
    # Every test crashes, fails on the scenarios that crashed, steps aside, or meets the wall
    # clock's end (a thousand workers started and ended): none passes.
    assert "passed" not in statuses(result)


def test_a_crash_costs_only_the_tests_that_crashed_or_judge_the_scenario_that_crashed(results):
    result = results["exit_on_empty_id"]
    counts = statuses(result)
    assert counts["crash"] >= 1
    # A generated rule that reads the crashing scenario fails on it, naming it; a test whose
    # case the crash decided steps aside; no other test loses anything.
    others = [o for o in result.outcomes if o.status not in ("passed", "crash")]
    assert {o.status for o in others} <= {"failed", "not_judged"}
    failed = [o for o in others if o.status == "failed"]
    assert all("generated" in o.test_id and "'id': ''" in o.example for o in failed)
    assert counts["passed"] == len(hidden_tests()) - counts["crash"] - len(others)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("sys_exit_at_import", "SystemExit"),
        ("syntax_error", "syntax error"),
        ("no_invoke_tool", "invoke_tool"),
    ],
)
def test_code_that_cannot_load_is_an_error_with_a_reason(results, name, words):
    result = results[name]
    assert result.status == "error"
    assert set(statuses(result)) == {"error"}
    assert words in result.reason


def test_printing_megabytes_passes_with_output_cut(results):
    result = results["prints_megabytes"]
    assert statuses(result) == {"passed": len(hidden_tests())}
    assert all(len(outcome.output) <= SETTINGS.limits.output_limit for outcome in result.outcomes)
    assert result.outcomes[0].output.startswith("xxxx")


def test_unreadable_submission_gets_an_error_for_every_test(results):
    result = results["unreadable"]
    assert result.status == "unreadable"
    assert result.reason == "It is not text."
    assert [o.test_id for o in result.outcomes] == [t.test_id for t in hidden_tests()]
    assert set(statuses(result)) == {"error"}
