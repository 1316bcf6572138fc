"""docs/CONTRACT.md's table is written from the home of each fact; CI says when it drifts."""

from course.contract import CATEGORY_TABLE, Category
from course.manifest import load_course
from tooling import contract_table
from tooling.contract_table import CONTRACT, END, START, with_table

pytestmark = []


def test_the_committed_table_is_the_one_the_manifest_and_contract_give():
    assert contract_table.main(["--check"]) == 0


def test_a_table_edited_by_hand_is_reported_stale(capsys, monkeypatch, tmp_path):
    text = CONTRACT.read_text(encoding="utf-8").replace("| 3 |", "| 3, 9 |")
    copy = tmp_path / "CONTRACT.md"
    copy.write_text(text, encoding="utf-8")
    monkeypatch.setattr(contract_table, "CONTRACT", copy)
    assert contract_table.main(["--check"]) == 1
    assert "out of date" in capsys.readouterr().err
    assert contract_table.main([]) == 0
    assert contract_table.main(["--check"]) == 0


def test_every_category_row_names_its_points_step_check_and_hidden_tests():
    text = with_table(f"before\n{START}\n{END}\nafter", load_course())
    assert text.startswith("before\n") and text.endswith("\nafter")
    assert (
        "| `ownership` | 5, 6 | 5.00, 5.00 | 5 `05-ownership.ipynb`, `copy-arguments` and "
        "`fresh-value` |" in text
    )
    assert (
        "| `error_codes` | 8, `unknown_tool`, the four exception codes | 3.34, 3.33, 3.33 |" in text
    )
    assert (
        "`course/checks/unicode_boundary.py` | `grader/hidden/test_unicode_boundary.py` |" in text
    )


def test_a_category_without_hidden_tests_is_an_error_not_a_dead_link(capsys, monkeypatch):
    made_up = Category("made_up", (1,), (), "nothing")
    monkeypatch.setattr(contract_table, "CATEGORY_TABLE", (*CATEGORY_TABLE, made_up))
    assert contract_table.main(["--check"]) == 1
    assert "grader/hidden/test_made_up.py does not exist" in capsys.readouterr().err
