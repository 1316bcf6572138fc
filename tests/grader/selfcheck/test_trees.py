"""The self-check's built attacks on the hand-in time meet their twin's lateness, and no better.

The trees are built as the self-check builds them; full-mark grades stand in for grading (the
command's own run, in test_selfcheck.py, grades them), so what is checked here is the lateness
the gradebook gives each tree, read from its files as `grade` reads them.
"""

from dataclasses import replace

import pytest
from grade_builders import CATALOGUE, grade_for

from grader.gradebook.book import ClassBook
from grader.selfcheck.trees import (
    ATTACKS,
    EARLY,
    LATE_TWIN,
    build_trees,
    late_differences,
    late_settings,
)

pytestmark = []


def graded_book(folder, settings):
    """Return a book holding a full-mark grade of every time tree, read from where it was built."""
    book = ClassBook(settings)
    for tree in build_trees(folder):
        found = tree.found
        if not (tree.attack.late_twin or tree.attack.name in (LATE_TWIN, "trees-classmate")):
            continue
        grade = grade_for(
            found.student, ["passed"] * len(CATALOGUE), path=found.path, within=found.start
        )
        book.add(grade)
    return book


def test_every_attack_on_the_hand_in_time_gets_its_twins_lateness(tmp_path):
    book = graded_book(tmp_path, late_settings())
    differences = late_differences(book)
    assert set(differences) == {a.name for a in ATTACKS if a.late_twin}
    assert all(difference == "" for difference in differences.values()), differences
    twin = book.summary(LATE_TWIN)
    assert twin is not None and twin.final_score == 0 and twin.seconds_late > 0
    assert book.summary("trees-nested-receipt").submitted == ""


@pytest.mark.parametrize("attack", ["trees-late-own-timestamp", "trees-nested-receipt"])
def test_an_attack_that_got_an_early_time_would_be_caught(tmp_path, attack):
    """Were the early time believed, the attack would beat its twin: the check says so."""
    settings = late_settings()
    settings = replace(settings, submitted_at={**settings.submitted_at, attack: EARLY})
    differences = late_differences(graded_book(tmp_path, settings))
    assert "where its twin got" in differences[attack]
