"""course/contract.py says what docs/CONTRACT.md says, and the sandbox can import it as it is."""

import re

import pytest

from course import contract
from course.manifest import load_course
from grader.paths import PROJECT_ROOT

pytestmark = []

CONTRACT = (PROJECT_ROOT / "docs" / "CONTRACT.md").read_text(encoding="utf-8")


def table_rows(heading):
    """Return the cells of each body row of the first table under `heading` in CONTRACT.md."""
    section = CONTRACT.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[2:]]


def test_the_failure_codes_are_the_contracts_seven_in_its_order():
    codes = [cells[0].strip("`") for cells in table_rows("The seven failure codes")]
    assert tuple(codes) == contract.FAILURE_CODES
    assert len(set(contract.FAILURE_CODES)) == 7


def test_the_categories_are_the_contracts_seven_with_their_rules_and_codes():
    rows = table_rows("How the grader scores it")
    assert tuple(cells[0].strip("`") for cells in rows) == contract.CATEGORIES
    for cells, category in zip(rows, contract.CATEGORY_TABLE, strict=True):
        column = cells[1]
        rules = {int(n) for n in re.findall(r"\b\d\b", re.sub(r"`[^`]*`", "", column))}
        assert rules == set(category.rules), category.name
        assert set(re.findall(r"`([a-z_]+)`", column)) <= set(category.codes), category.name
    every_rule = {rule for category in contract.CATEGORY_TABLE for rule in category.rules}
    assert every_rule == set(contract.RULES)


def test_the_rules_are_named_as_the_contract_names_them():
    for number, name in contract.RULES.items():
        assert f"{number}. **{name}.**" in CONTRACT


def test_the_default_budget_and_the_envelope_keys_are_the_contracts():
    assert f"max_result_bytes={contract.DEFAULT_MAX_RESULT_BYTES})" in CONTRACT
    [success] = [line for line in CONTRACT.splitlines() if line.startswith("  - on success")]
    assert tuple(re.findall(r'"(\w+)": ', success)) == contract.ENVELOPE_KEYS


def test_every_category_is_taught_by_a_step_and_every_step_names_real_categories():
    course = load_course()
    taught = [name for step in course.all_steps for name in step.categories]
    assert sorted(set(taught)) == sorted(contract.CATEGORIES)


def test_a_manifest_naming_an_unknown_category_is_refused_with_the_known_ones(tmp_path):
    manifest = (PROJECT_ROOT / "course" / "steps.toml").read_text(encoding="utf-8")
    steps_file = tmp_path / "steps.toml"
    steps_file.write_text(manifest.replace('"unicode_boundary"', '"byte_budget"'), "utf-8")
    with pytest.raises(KeyError, match="'byte_budget' is not a grading category") as raised:
        load_course(steps_file)
    assert "unicode_boundary" in str(raised.value)
