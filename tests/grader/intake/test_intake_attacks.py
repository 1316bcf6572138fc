"""Links, pipes and devices instead of work: each earns nothing and changes no one else's grade.

The attacks of grader/selfcheck/trees.py (notebooks linked to the solutions or to a classmate,
a linked student or assignment folder, a named pipe, /dev/zero, a 300 MB notebook) are graded
in one class with the classmate they copy, and the classmate alone in another: the classmate's
results are the same, and each attacker is told why their files were not read.
"""

import pytest
from grader_cli import read_grades, run_grader

from grader.sandbox.cleanup import remove_tree
from grader.selfcheck.trees import CLASSMATE, build_trees

pytestmark = [pytest.mark.bwrap]

REASONS = {
    "trees-links-to-solutions": "is a link to another file",
    "trees-links-to-classmate": "is a link to another file",
    "trees-hard-links-to-solutions": "is a hard link to a file of the course",
    "trees-linked-folder": "trees-linked-folder is a link",
    "trees-linked-assignment": "bounded_results is a link",
    "trees-pipe-notebook": "is a named pipe, not a file",
    "trees-device-notebook": "is a device, not a file",
    "trees-huge-notebook": "is larger than 8 MB",
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Grade the attacks with their classmate, and the classmate alone."""
    root = tmp_path_factory.mktemp("trees")
    attacked, alone = root / "attacked", root / "alone"
    attacked.mkdir()
    alone.mkdir()
    trees = build_trees(attacked)
    build_trees(alone)  # then keep only the classmate
    for place in alone.iterdir():
        if place.name != CLASSMATE:
            remove_tree(place)
    for folder in (attacked, alone):
        completed = run_grader("grade", folder, "--out", root / f"out-{folder.name}", timeout=300)
        assert completed.returncode == 0, completed.stderr
    return root, [tree.attack.name for tree in trees if tree.attack.score == "zero"]


def test_no_attack_earns_a_point(graded):
    root, names = graded
    grades = read_grades(root / "out-attacked")
    for name in names:
        assert float(grades[name]["score"]) == 0, name


def test_each_attacker_is_told_which_file_was_not_read_and_why(graded):
    root, names = graded
    for name in names:
        feedback = (root / "out-attacked" / name / "feedback.md").read_text(encoding="utf-8")
        assert REASONS[name] in feedback, name


def test_the_classmate_copied_from_is_graded_exactly_as_without_the_attacks(graded):
    root, _ = graded
    with_attacks = read_grades(root / "out-attacked")[CLASSMATE]
    assert with_attacks == read_grades(root / "out-alone")[CLASSMATE]
    assert with_attacks["score"] == with_attacks["max_score"]
    results = [
        (root / f"out-{run}" / CLASSMATE / "results.json").read_text(encoding="utf-8")
        for run in ("attacked", "alone")
    ]
    assert results[0] == results[1]
