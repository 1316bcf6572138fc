"""`python -m grader selfcheck` holds the grader to the known answers of the fixtures.

Each fixture's path says what it must score; fixtures/submissions/exceptions.toml says only
what a path cannot.
"""

import re
import sys
import tomllib

import pytest
from grader_cli import run_grader

from grader import model
from grader.model import RunResult, Submission
from grader.paths import PROJECT_ROOT, SUBMISSIONS
from grader.score import score
from grader.selfcheck import catalogue
from grader.selfcheck.catalogue import check
from grader.selfcheck.expectations import (
    Expectation,
    FixtureLayoutError,
    find_fixture,
    load_expectations,
    summary_of,
)

pytestmark = []

PROJECT = PROJECT_ROOT


def grade_with(points_lost_in=(), status="completed", test_status="failed"):
    outcomes = tuple(
        model.TestOutcome(
            test_id=category,
            category=category,
            status=test_status if category in points_lost_in else "passed",
            description=category,
        )
        for category in model.CATEGORIES
    )
    return score(RunResult(Submission("x", "x.py", "python", ()), outcomes, status))


def test_a_buggy_submission_must_lose_points_in_its_category_and_only_there():
    expectation = Expectation("x", PROJECT / "x.py", "fails", must_fail=("redaction",))
    assert check(expectation, grade_with(["redaction"])) == ""
    assert "envelope" in check(expectation, grade_with(["redaction", "envelope"]))
    assert check(expectation, grade_with([])) != ""


def test_full_marks_and_zero_are_checked_against_the_score_and_the_status():
    assert check(Expectation("x", PROJECT, "full"), grade_with([])) == ""
    assert check(Expectation("x", PROJECT, "full"), grade_with(["no_retry"])) != ""
    assert check(Expectation("x", PROJECT, "zero"), grade_with(model.CATEGORIES)) == ""
    crashed = grade_with(model.CATEGORIES, status="crash")
    assert check(Expectation("x", PROJECT, "zero"), crashed) != ""


def test_a_label_matches_the_run_status_or_a_test_status():
    timed_out = grade_with(["no_retry"], test_status="timeout")
    assert check(Expectation("x", PROJECT, "label", labels=("timeout",)), timed_out) == ""
    assert "labels seen" in check(Expectation("x", PROJECT, "label", labels=("crash",)), timed_out)


def test_categories_to_keep_must_earn_full_marks_whatever_the_kind():
    expectation = Expectation("x", PROJECT, "label", keeps=("envelope",), labels=("failed",))
    assert check(expectation, grade_with(["redaction"])) == ""
    assert check(expectation, grade_with(["envelope"])) != ""


def test_a_zero_score_with_a_label_accepts_a_run_that_ended_early():
    crashed = grade_with(model.CATEGORIES, status="crash", test_status="crash")
    assert check(Expectation("x", PROJECT, "zero", labels=("crash",)), crashed) == ""
    assert check(Expectation("x", PROJECT, "zero", labels=("timeout",)), crashed) != ""


@pytest.mark.bwrap
@pytest.mark.slow
def test_the_selfcheck_command_passes():
    completed = run_grader("selfcheck", timeout=900)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "Self-check passed" in completed.stdout


def layout(root, *names, exceptions=""):
    """Write a fixture folder under `root` holding `names`, each with its docstring."""
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'"""The student wrote {name}.\n\nMore detail."""\n', encoding="utf-8")
    if exceptions:
        (root / "exceptions.toml").write_text(exceptions, encoding="utf-8")
    return root


def by_path(expectations, root):
    return {e.path.relative_to(root).as_posix(): e for e in expectations if root in e.path.parents}


def test_the_folder_holding_a_fixture_says_what_it_must_score(tmp_path):
    names = [
        "correct/honest.py",
        "adversarial/correct/prints-a-lot.py",
        "buggy/envelope/ok-is-int.py",
        "twins/no_retry/retries.py",
        "adversarial/timeout/loops.py",
    ]
    found = by_path(load_expectations(layout(tmp_path, *names)), tmp_path)
    assert {name: (e.score, e.must_fail, e.labels) for name, e in found.items()} == {
        "correct/honest.py": ("full", (), ()),
        "adversarial/correct/prints-a-lot.py": ("full", (), ()),
        "buggy/envelope/ok-is-int.py": ("fails", ("envelope",), ()),
        "twins/no_retry/retries.py": ("fails", ("no_retry",), ()),
        "adversarial/timeout/loops.py": ("label", tuple(sorted(model.CATEGORIES)), ("timeout",)),
    }
    assert set(found["buggy/envelope/ok-is-int.py"].keeps) == set(model.CATEGORIES) - {"envelope"}
    assert found["adversarial/timeout/loops.py"].keeps == ()
    assert found["correct/honest.py"].student == "correct-honest"
    assert found["correct/honest.py"].summary == "The student wrote correct/honest.py."


def test_the_exceptions_file_says_only_what_a_path_cannot(tmp_path):
    exceptions = """
["buggy/envelope/two-rules.py"]
must_fail = ["envelope", "redaction"]

["adversarial/forbidden/some-may-pass.py"]
must_fail = ["no_retry"]
keeps = []

["odd/kept-for-another-test.py"]
skip = "Another test grades it."
"""
    names = [
        "buggy/envelope/two-rules.py",
        "adversarial/forbidden/some-may-pass.py",
        "odd/kept-for-another-test.py",
    ]
    found = by_path(load_expectations(layout(tmp_path, *names, exceptions=exceptions)), tmp_path)
    assert set(found) == {"buggy/envelope/two-rules.py", "adversarial/forbidden/some-may-pass.py"}
    two_rules = found["buggy/envelope/two-rules.py"]
    assert (two_rules.score, two_rules.must_fail) == ("fails", ("envelope", "redaction"))
    assert set(two_rules.keeps) == set(model.CATEGORIES) - {"envelope", "redaction"}
    some_may_pass = found["adversarial/forbidden/some-may-pass.py"]
    assert (some_may_pass.must_fail, some_may_pass.keeps) == (("no_retry",), ())


@pytest.mark.parametrize(
    ("names", "exceptions", "message"),
    [
        (["adversarial/loops.py"], "", "adversarial/loops.py: its folder names no expectation"),
        (["buggy/timeout/loops.py"], "", "a buggy fixture cannot expect 'label'"),
        (["correct/envelope/ok.py"], "", "a correct fixture cannot expect 'fails'"),
        (["correct/notes.txt"], "", "a fixture is a .py file or a notebook"),
        (
            ["correct/a.py"],
            '["buggy/envelope/gone.py"]\nskip = "x"\n',
            "names buggy/envelope/gone.py",
        ),
        (
            ["buggy/envelope/a.py"],
            '["buggy/envelope/a.py"]\nmust_fail = ["redaction"]\n',
            "leaves out envelope",
        ),
        (
            ["buggy/envelope/a.py"],
            '["buggy/envelope/a.py"]\nmust_fail = ["envelop"]\n',
            "unknown envelop",
        ),
        (["buggy/envelope/a.py"], '["buggy/envelope/a.py"]\nexpect = "full"\n', "unknown expect"),
        (["correct/a.py"], 'correct = "a.py"\n', "correct: a fixture's entry is a table"),
        (["correct/a.py"], '["correct/a.py"\n', "exceptions.toml: "),
    ],
)
def test_a_fixture_the_layout_cannot_classify_stops_the_loader(
    tmp_path, names, exceptions, message
):
    with pytest.raises(FixtureLayoutError, match=re.escape(message)):
        load_expectations(layout(tmp_path, *names, exceptions=exceptions))


def test_the_selfcheck_command_refuses_such_a_layout_in_one_line(tmp_path, capsys):
    assert catalogue.main(layout(tmp_path, "adversarial/loops.py")) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert "adversarial/loops.py" in error


def test_every_fixture_file_is_classified_and_every_exception_names_one():
    expectations = load_expectations()
    exceptions = tomllib.loads((SUBMISSIONS / "exceptions.toml").read_text(encoding="utf-8"))
    skipped = {name for name, table in exceptions.items() if "skip" in table}
    files = {p.relative_to(SUBMISSIONS).as_posix() for p in SUBMISSIONS.rglob("*.py")}
    checked = {e.path.relative_to(SUBMISSIONS).as_posix() for e in expectations[:-1]}
    assert checked == files - skipped
    assert set(exceptions) <= files
    assert expectations[-1].student == "untouched-lessons"
    assert expectations[-1].score == "zero"
    assert len({e.student for e in expectations}) == len(expectations)


def test_the_reference_and_every_buggy_fixture_expect_what_their_folder_says():
    found = by_path(load_expectations(), SUBMISSIONS)
    assert found["correct/reference.py"].score == "full"
    buggy = [e for name, e in found.items() if name.startswith("buggy/")]
    assert len(buggy) > 100
    assert all(e.score == "fails" and e.path.parent.name in e.must_fail for e in buggy)
    assert found["adversarial/error/syntax-error.py"].labels == ("error",)


def test_every_fixture_says_in_its_docstring_what_the_student_did():
    expectations = load_expectations()
    assert all(e.summary for e in expectations), [e.student for e in expectations if not e.summary]
    # Tokenized, not parsed: the fixture that does not parse says what it is too.
    syntax_error = find_fixture("adversarial", "syntax-error")
    assert summary_of(syntax_error).startswith("Adversarial: the file does not parse")


def test_a_failing_fixture_shows_what_its_student_did(capsys):
    expectation = Expectation("x", PROJECT / "x.py", "full", summary="The student retried.")
    printer = catalogue._Printer([expectation], sys.stdout)
    printer.advance(grade_with(["no_retry"]))
    printer.advance(grade_with([]))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("✗ x.py: expected full marks")
    assert lines[1] == "    The student retried."
    assert lines[2] == "✓ x.py: full marks"


def test_a_fixture_is_found_by_its_name_whatever_its_expectation():
    assert find_fixture("twins", "fills-disk") == SUBMISSIONS / "twins/no_retry/fills-disk.py"
    with pytest.raises(FixtureLayoutError, match="0 fixtures named"):
        find_fixture("adversarial", "no-such-attack")
