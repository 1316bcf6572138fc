"""The report step writes grades.csv and results.json reproducibly and atomically."""

import csv
import json
import os

import pytest
from grade_builders import CATALOGUE, grade_for

from grader import outputs
from grader.model import CATEGORIES, HiddenTest
from grader.reports import grade_files
from grader.reports.summary import summarize

pytestmark = []


def test_grades_csv_has_one_row_per_student_with_every_category(tmp_path):
    grades = [
        grade_for("grace", ["passed"] * 4),
        grade_for("ada", ["passed", "failed", "passed", "failed"]),
    ]
    grade_files.write_grades(map(summarize, grades), tmp_path)
    with (tmp_path / "grades.csv").open(encoding="utf-8", newline="") as stream:
        rows = list(csv.DictReader(stream))
    assert list(rows[0]) == ["student", "score", "max_score", *CATEGORIES, "status"]
    assert [row["student"] for row in rows] == ["ada", "grace"]
    assert rows[0]["envelope"] == "5.00"
    assert rows[0]["ownership"] == "0.00"
    assert rows[0]["score"] == "15.00"
    assert rows[1]["status"] == "completed"


def test_results_json_has_one_gradescope_test_per_hidden_test(tmp_path):
    grade = grade_for("ada", ["passed", "failed", "passed", "failed"])
    grade_files.write_student(grade, tmp_path)
    document = json.loads((tmp_path / "ada" / "results.json").read_text(encoding="utf-8"))
    assert document["score"] == grade.score
    tests = document["tests"]
    # The two cases of envelope/test_id are one test; the other two tests have one case each.
    assert len(tests) == 3
    assert [t["tags"] for t in tests] == [["envelope"], ["error_codes"], ["ownership"]]
    assert [t["status"] for t in tests] == ["failed", "passed", "failed"]
    assert [(t["score"], t["max_score"]) for t in tests] == [(5.0, 10.0), (10.0, 10.0), (0.0, 10.0)]
    assert {t["visibility"] for t in tests} == {"visible"}
    assert tests[0]["name"] == "envelope: The id comes back <unchanged>."
    assert len({t["name"] for t in tests}) == len(tests)
    # Each category's tests are worth exactly its 10 points, in cents.
    categories = {test.category for test in CATALOGUE}
    assert round(sum(t["max_score"] for t in tests), 2) == 10.0 * len(categories)


def test_a_failed_test_output_names_the_lesson_step_and_never_the_printed_output(tmp_path):
    grade = grade_for("ada", ["passed", "passed", "passed", "failed"], output="SECRET printed")
    grade_files.write_student(grade, tmp_path)
    tests = json.loads((tmp_path / "ada" / "results.json").read_text(encoding="utf-8"))["tests"]
    ownership = tests[-1]["output"]
    assert "05-ownership.ipynb" in ownership
    assert "SECRET" not in (tmp_path / "ada" / "results.json").read_text(encoding="utf-8")
    assert tests[0]["output"] == ""


def test_a_timed_out_test_says_so_plainly(tmp_path):
    grade = grade_for("ada", ["timeout", "passed", "passed", "passed"])
    output = json.loads(grade_files.results_json(grade))["tests"][0]["output"]
    assert output.startswith("1 of its 2 cases failed (timed out).")
    assert "more processor time than one test allows" in output


def test_the_same_grades_give_byte_identical_files(tmp_path):
    grades = [grade_for("ada", ["passed", "failed", "timeout", "passed"])]
    for out in (tmp_path / "one", tmp_path / "two"):
        grade_files.write_grades(map(summarize, grades), out)
        grade_files.write_student(grades[0], out)
    for name in ("grades.csv", "ada/results.json", "ada/feedback.md", "ada/feedback.html"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_writing_atomically_replaces_the_file_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "grades.csv"
    target.write_text("old", encoding="utf-8")
    outputs.write_atomically(target, "new")
    assert target.read_text(encoding="utf-8") == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["grades.csv"]


def test_timings_go_in_their_own_file(tmp_path):
    grade_files.write_timings([("ada", 1.23456)], tmp_path)
    assert json.loads((tmp_path / "timings.json").read_text(encoding="utf-8")) == {"ada": 1.235}


@pytest.mark.parametrize(
    "finished",
    [[], [("ada", 1.23456)], [("ada", 0.0), ("bob", 12.5), ('quo"te', 3.0), ("élève", 1e-4)]],
)
def test_timings_are_laid_out_as_indented_json_however_many_students(tmp_path, finished):
    grade_files.write_timings(finished, tmp_path)
    rounded = {student: round(seconds, 3) for student, seconds in finished}
    expected = json.dumps(rounded, indent=2, sort_keys=True) + "\n"
    assert (tmp_path / "timings.json").read_text(encoding="utf-8") == expected


def test_the_summary_says_what_to_do_next():
    every_category = [HiddenTest(c, c, c) for c in CATEGORIES]
    grade = grade_for("ada", ["passed"] * len(CATEGORIES), catalogue=every_category)
    perfect = json.loads(grade_files.results_json(grade))
    partial = json.loads(grade_files.results_json(grade_for("ada", ["failed"] * 4)))
    stopped = json.loads(grade_files.results_json(grade_for("ada", [], run_status="timeout")))
    assert "Every hidden test passed" in perfect["output"]
    assert "revisit" in partial["output"]
    assert "stopped early" in stopped["output"]


def test_report_files_are_the_instructors_groups_at_most_and_never_the_worlds(tmp_path):
    before = os.umask(0o022)  # the usual umask, which would let every user read
    try:
        grade_files.write_student(grade_for("ada", ["passed"] * 4), tmp_path / "out")
        grade_files.write_grades([summarize(grade_for("ada", ["passed"] * 4))], tmp_path / "out")
        os.umask(0o077)
        grade_files.write_grades(
            [summarize(grade_for("ada", ["passed"] * 4))], tmp_path / "private"
        )
    finally:
        os.umask(before)
    out = tmp_path / "out"
    modes = {path.name: path.stat().st_mode & 0o777 for path in out.rglob("*")}
    assert modes["results.json"] == modes["feedback.html"] == modes["grades.csv"] == 0o640
    assert modes["ada"] == out.stat().st_mode & 0o777 == 0o750
    assert (tmp_path / "private" / "grades.csv").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "private").stat().st_mode & 0o777 == 0o700
