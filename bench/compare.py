"""Read each grader's per-category points and say where they disagree."""

import csv
from collections.abc import Iterable, Mapping
from pathlib import Path

from grader.integrations.nbgrader_bridge import grade_id_for
from grader.model import CATEGORIES

Points = dict[str, dict[str, float]]  # student -> category -> points


def grader_points(out_dir: str | Path) -> Points:
    """Return {student: {category: points}} from the grader's grades.csv."""
    with (Path(out_dir) / "grades.csv").open(encoding="utf-8", newline="") as stream:
        return {
            row["student"]: {category: float(row[category]) for category in CATEGORIES}
            for row in csv.DictReader(stream)
        }


def nbgrader_points(course_root: str | Path, students: Iterable[str]) -> Points:
    """Return {student: {category: points}} from nbgrader's gradebook for `students`."""
    from nbgrader.api import Gradebook, MissingEntry  # heavy import, only when nbgrader runs

    categories = {grade_id_for(category): category for category in CATEGORIES}
    points: Points = {}
    with Gradebook(f"sqlite:///{Path(course_root) / 'gradebook.db'}") as gradebook:
        for student in students:
            try:
                submission = gradebook.find_submission("bounded_results", student)
            except MissingEntry:
                points[student] = {}
                continue
            points[student] = {
                categories[grade.name]: float(grade.score)
                for notebook in submission.notebooks
                for grade in notebook.grades
                if grade.name in categories
            }
    return points


def compare_points(
    ours: Mapping[str, Mapping[str, float]],
    theirs: Mapping[str, Mapping[str, float]],
    names: tuple[str, str] = ("grader", "nbgrader"),
) -> list[str]:
    """Return one sentence per student and category where the two graders disagree.

    Every student of `theirs` is compared; `names` say which grader is which in the sentences.
    """
    problems = []
    for student, their_points in sorted(theirs.items()):
        for category in CATEGORIES:
            mine = ours.get(student, {}).get(category)
            other = their_points.get(category)
            if mine is None or other is None or abs(mine - other) > 0.005:
                problems.append(f"{student} {category}: {names[0]} {mine}, {names[1]} {other}")
    return problems
