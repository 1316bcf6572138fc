"""The adversarial catalogue: each tamper gets its label, earns nothing, and harms no neighbour."""

from collections import Counter

import pytest

from grader.batch.run import RunSettings, hidden_tests, run_submissions
from grader.model import CodeUnit, Limits, Submission
from grader.paths import PROJECT_ROOT
from grader.score import score
from grader.selfcheck.expectations import find_fixture

pytestmark = [pytest.mark.bwrap, pytest.mark.slow]

FIXTURES = PROJECT_ROOT / "fixtures/submissions"
REFERENCE = (FIXTURES / "correct/reference.py").read_text(encoding="utf-8")
# A smaller memory limit than the default, so filling it fits well within the per-test limit.
SETTINGS = RunSettings(
    jobs=2, limits=Limits(timeout=3.0, test_timeout=1.0, output_limit=4096, memory_mb=256)
)
# Junk in the shape the tampering fixtures fall back to: what they earn without cheating.
JUNK = (
    "def invoke_tool(request, tools, **options):\n"
    "    return {'id': None, 'ok': None, 'value': [], 'error': 'junk'}\n"
)
ADVERSARIAL = (
    "reads-hidden-tests",
    "writes-output-folder",
    "eq-always-true",
    "bool-subclass-ok",
    "dict-subclass-envelope",
    "patches-json-and-copy",
    "patches-grader-modules",
    "swallows-keyboard-interrupt",
    "fork-bomb",
    "sleeps-past-limit",
    "fills-memory",
    "floods-output",
)


def single_file(name, source):
    return Submission(name, f"{name}.py", "python", (CodeUnit(name, f"{name}.py", source),))


def fixture(name):
    return single_file(name, find_fixture("adversarial", name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def grades():
    """One batch: a reference between every two adversarial submissions, and plain junk."""
    submissions = [single_file("junk", JUNK)]
    for number, name in enumerate(ADVERSARIAL):
        submissions += [fixture(name), single_file(f"reference-{number}", REFERENCE)]
    tests = hidden_tests()
    results = run_submissions(submissions, SETTINGS)
    return {r.submission.student: score(r, tests) for r in results}


def labels(grade):
    return Counter(outcome.status for outcome in grade.run.outcomes)


def points(grade):
    return {c.category: c.points for c in grade.categories}


def test_no_adversarial_neighbour_changes_a_correct_submissions_result(grades):
    references = [grade for name, grade in grades.items() if name.startswith("reference-")]
    assert len(references) == len(ADVERSARIAL)
    for grade in references:
        assert grade.run.status == "completed", grade.run.reason
        assert grade.score == grade.max_score


@pytest.mark.parametrize("name", ["reads-hidden-tests", "writes-output-folder"])
def test_looking_around_the_disk_earns_no_more_than_junk(grades, name):
    junk = points(grades["junk"])
    assert all(amount <= junk[category] for category, amount in points(grades[name]).items())


def test_reading_proc_is_refused_with_its_own_label(grades):
    assert labels(grades["reads-hidden-tests"])["forbidden"] >= 1


def test_patching_the_graders_modules_earns_no_more_than_junk(grades):
    # Its envelope names what it patched, which differs between loads: rule 3's twins may then
    # cost it points that junk's one constant envelope keeps, never the other way round.
    junk = points(grades["junk"])
    patched = points(grades["patches-grader-modules"])
    assert all(amount <= junk[category] for category, amount in patched.items())


@pytest.mark.parametrize(
    ("name", "kept"),
    [
        ("eq-always-true", {"no_retry"}),
        # What the dict really holds is a constant tool_failed failure with nothing of the
        # exception in it, after copying the arguments: that keeps rules 3 and 5 (and no value
        # is left for rule 6 to judge), whatever its methods pretend.
        ("dict-subclass-envelope", {"no_retry", "redaction", "ownership"}),
    ],
)
def test_lying_envelopes_earn_only_the_rules_they_really_keep(grades, name, kept):
    earned = points(grades[name])
    lost = {category for category, amount in earned.items() if amount < 10}
    assert lost == set(earned) - kept
    assert earned["vocabulary"] == earned["unicode_boundary"] == 0


def test_a_bool_lookalike_loses_the_envelope_points(grades):
    earned = points(grades["bool-subclass-ok"])
    assert earned["envelope"] < 10
    assert earned["error_codes"] == earned["redaction"] == earned["no_retry"] == 10


def test_patching_json_and_copy_does_not_hide_sharing_or_sizes(grades):
    earned = points(grades["patches-json-and-copy"])
    assert earned["ownership"] < 10
    assert earned["unicode_boundary"] < 10
    assert earned["envelope"] == earned["error_codes"] == 10


@pytest.mark.parametrize(
    ("name", "label"),
    [
        # Ignoring signals and forking are refused before they can hold up the worker.
        ("swallows-keyboard-interrupt", "forbidden"),
        ("fork-bomb", "forbidden"),
        ("sleeps-past-limit", "timeout"),
        ("fills-memory", "memory"),
        ("floods-output", "output_limit"),
    ],
)
def test_runaway_code_gets_its_label_and_earns_nothing_it_did_not_keep(grades, name, label):
    grade = grades[name]
    assert labels(grade)[label] >= 1
    if name != "swallows-keyboard-interrupt":
        assert grade.score == 0
