"""The benchmark builds the class it says it builds, and notices when the graders disagree."""

import json

from bench.compare import compare_points
from bench.make_class import CATALOGUE, make_class, submission_mix
from course.assemble import load_course, notebook_exercise_cells
from grader.model import CATEGORIES

COURSE = load_course()


def test_the_mix_holds_correct_buggy_and_adversarial_submissions():
    groups = {path.relative_to(CATALOGUE).parts[0] for path in submission_mix()[:10]}
    assert groups == {"correct", "buggy", "adversarial"}
    assert all(path.is_file() for path in submission_mix())


def test_each_student_gets_every_lesson_with_a_catalogue_submission_as_the_last_step(tmp_path):
    students = make_class(tmp_path, 3)
    assert students == ["student-0000", "student-0001", "student-0002"]
    mix = submission_mix()
    for number, student in enumerate(students):
        folder = tmp_path / "submitted" / student / COURSE.assignment
        assert sorted(p.name for p in folder.iterdir()) == [s.notebook for s in COURSE.steps]
        last = folder / COURSE.steps[-1].notebook
        json.loads(last.read_text(encoding="utf-8"))  # still a notebook
        [cell] = [c for c in notebook_exercise_cells(last, COURSE).cells]
        assert cell.source == mix[number].read_text(encoding="utf-8")


def test_the_same_size_gives_the_same_class(tmp_path):
    make_class(tmp_path / "a", 4)
    make_class(tmp_path / "b", 4)
    first = sorted((tmp_path / "a").rglob("*.ipynb"))
    second = sorted((tmp_path / "b").rglob("*.ipynb"))
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]


def test_equal_points_agree_and_any_difference_is_reported():
    points = {category: 10.0 for category in CATEGORIES}
    ours = {"ada": dict(points), "alan": dict(points, vocabulary=7.5)}
    assert compare_points(ours, {"ada": dict(points)}) == []
    problems = compare_points(ours, {"alan": dict(points), "bob": {}})
    assert problems[0] == "alan vocabulary: grader 7.5, nbgrader 10.0"
    assert len(problems) == 1 + len(CATEGORIES)
