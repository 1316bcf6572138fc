"""The mutation analysis makes stable mutants, reads grades.csv right and fails on a survivor."""

import json
import re
from dataclasses import replace

import pytest

from course import contract
from tooling.mutation import cli, edits
from tooling.mutation.classes import CLASS_MUTATIONS, class_mutants
from tooling.mutation.classify import (
    Equivalent,
    MutationError,
    judge_all,
    load_equivalents,
    parse_grades,
)
from tooling.mutation.generate import generate_mutants
from tooling.mutation.report import summarize

pytestmark = []

SAMPLE = '''"""A sample module: only the function body may be mutated."""

import math

LIMIT = 5


def double(x):
    """Return twice x."""
    return x * 2
'''
# Another function before `double`, which moves it down the file.
SHIFTED = SAMPLE.replace("\n\ndef double", "\n\ndef half(x):\n    return x / 2\n\n\ndef double")
CATEGORIES = ["envelope", "error_codes", "ownership"]
GRADES = """student,score,max_score,envelope,error_codes,ownership,status
double-aaaaaaaa,30.00,30.00,10.00,10.00,10.00,completed
double-bbbbbbbb,29.00,30.00,10.00,10.00,9.00,completed
double-cccccccc,30.00,30.00,10.00,10.00,10.00,timeout
"""


def test_sample_function_gives_mutmut_mutants_of_its_body_only_with_stable_ids():
    mutants = generate_mutants(SAMPLE)

    # mutmut would also mutate `LIMIT = 5` and `5`; module-level code and docstrings are left.
    assert [(m.function, m.line, m.diff) for m in mutants] == [
        ("double", 10, "return x * 2 -> return x / 2"),
        ("double", 10, "return x * 2 -> return x * 3"),
    ]
    assert all(re.fullmatch(r"double-[0-9a-f]{8}", m.id) for m in mutants)
    assert len({m.id for m in mutants}) == 2
    assert [m.id for m in generate_mutants(SAMPLE)] == [m.id for m in mutants]
    assert mutants[0].source == SAMPLE.replace("x * 2", "x / 2")


def test_ids_do_not_move_when_other_code_moves_the_function():
    before = {m.diff: m.id for m in generate_mutants(SAMPLE)}
    after = {m.diff: (m.id, m.line) for m in generate_mutants(SHIFTED) if m.function == "double"}

    assert {diff: mutant_id for diff, (mutant_id, _) in after.items()} == before
    assert {line for _, line in after.values()} == {14}


def test_full_marks_survive_a_lost_point_or_an_unfinished_run_kills():
    rows = parse_grades(GRADES)
    verdicts = judge_all(rows, list(rows))

    assert not verdicts["double-aaaaaaaa"].killed
    assert verdicts["double-bbbbbbbb"].killed
    assert verdicts["double-bbbbbbbb"].lost == ("ownership",)
    assert verdicts["double-cccccccc"].killed
    assert verdicts["double-cccccccc"].lost == ()
    with pytest.raises(MutationError, match="no row for 1 mutant"):
        judge_all(rows, ["double-dddddddd"])


def test_summary_counts_equivalents_out_of_the_score_and_names_the_rest():
    mutants = generate_mutants(SAMPLE)
    divide, plus_one = mutants
    rows = parse_grades(
        GRADES.replace("aaaaaaaa", divide.id[-8:]).replace("bbbbbbbb", plus_one.id[-8:])
    )
    verdicts = judge_all(rows, [m.id for m in mutants])
    recorded = {divide.id: Equivalent(divide.id, divide.diff, "a sample reason")}

    with_entry = summarize(mutants, verdicts, recorded, CATEGORIES)
    without = summarize(mutants, verdicts, {}, CATEGORIES)
    stale = summarize(mutants, verdicts, {**recorded, "gone-12345678": recorded[divide.id]}, [])

    assert (with_entry.total, with_entry.killed, with_entry.survived) == (2, 1, 1)
    assert with_entry.equivalent == 1 and with_entry.mutation_score == 1.0
    assert with_entry.unexplained == [] and with_entry.warnings == []
    assert with_entry.killed_by_category == {"envelope": 0, "error_codes": 0, "ownership": 1}
    assert without.mutation_score == 0.5
    assert [s.id for s in without.unexplained] == [divide.id]
    assert any("gone-12345678" in warning for warning in stale.warnings)


@pytest.mark.parametrize("path", [cli.REFERENCE, cli.SECOND_REFERENCE], ids=lambda p: p.stem)
def test_each_class_mutation_changes_only_its_function_of_each_reference(path):
    source = path.read_text(encoding="utf-8")
    mutants = class_mutants(source, path.stem)
    changes = [(c, c.edit(path.stem)) for c in CLASS_MUTATIONS]

    assert [m.id for m in mutants] == [
        edits.mutant_id(c.name, edit.function, path.stem) for c, edit in changes if edit
    ]
    assert [m.categories for m in mutants] == [c.categories for c, edit in changes if edit]
    assert len({m.id for m in mutants}) == len(mutants)
    for mutant in mutants:
        compile(mutant.source, mutant.id, "exec")
        assert mutant.source != source
        assert mutant.categories and set(mutant.categories) <= set(contract.CATEGORIES), mutant.id
        untouched = [line for line in source.splitlines() if f"def {mutant.function}(" in line]
        assert untouched[0] in mutant.source.splitlines()


def test_every_bug_class_mutates_the_first_reference_and_names_its_second_reference_mutants():
    first = class_mutants(cli.REFERENCE.read_text(encoding="utf-8"), edits.FIRST)
    second = class_mutants(cli.SECOND_REFERENCE.read_text(encoding="utf-8"), edits.SECOND)
    # The bugs whose value departs from its encoded text, or whose check is apart from the copy:
    # the second reference makes its value, its text and its check in one walk (classes.py).
    no_place = {
        "floats-cut-to-15-digits",
        "big-ints-become-floats",
        "negative-zero-becomes-zero",
        "strings-nfc-normalised",
        "checks-first-item-only",
    }

    assert [m.id for m in first] == [f"{c.first.function}-{c.name}" for c in CLASS_MUTATIONS]
    assert {c.name for c in CLASS_MUTATIONS if c.second is None} == no_place
    assert all(m.id.startswith("second-reference-") for m in second)
    assert not {m.id for m in first} & {m.id for m in second}
    with pytest.raises(ValueError, match="no reference solution is named"):
        CLASS_MUTATIONS[0].edit("third-reference")


def test_a_class_mutation_that_no_longer_fits_the_reference_is_refused():
    with pytest.raises(ValueError, match="is not once in make_envelope"):
        class_mutants("def make_envelope(request_id):\n    return request_id\n")


def test_a_class_mutant_losing_points_outside_its_categories_is_a_gap():
    mutant = replace(generate_mutants(SAMPLE)[1], categories=("envelope",))
    rows = parse_grades(GRADES.replace("double-bbbbbbbb", mutant.id))
    lost_elsewhere = summarize([mutant], judge_all(rows, [mutant.id]), {}, CATEGORIES)
    right = summarize(
        [replace(mutant, categories=("ownership",))], judge_all(rows, [mutant.id]), {}, CATEGORIES
    )

    assert [k.id for k in lost_elsewhere.misattributed] == [mutant.id]
    assert lost_elsewhere.failed and not lost_elsewhere.unexplained
    assert right.misattributed == [] and not right.failed


def test_committed_equivalents_name_real_mutants_of_the_reference():
    recorded = load_equivalents(cli.EQUIVALENTS)
    mutants = {m.id: m for m in generate_mutants(cli.REFERENCE.read_text(encoding="utf-8"))}

    for mutant_id, entry in recorded.items():
        assert mutant_id in mutants, f"{mutant_id} is no longer a mutant of the reference"
        assert entry.diff == mutants[mutant_id].diff, mutant_id


def test_equivalents_file_must_give_id_diff_and_why(tmp_path):
    path = tmp_path / "equivalent.toml"
    path.write_text('[[equivalent]]\nid = "double-1"\ndiff = "a -> b"\n', encoding="utf-8")

    with pytest.raises(MutationError, match="non-empty why"):
        load_equivalents(path)


@pytest.mark.bwrap
@pytest.mark.slow
def test_two_real_mutants_graded_in_one_batch(tmp_path, capsys):
    mutants = generate_mutants(cli.REFERENCE.read_text(encoding="utf-8"))
    # One mutant the byte-budget tests must kill, one that cannot change behaviour.
    off_by_one = next(m for m in mutants if m.diff.endswith("if size >= max_result_bytes:"))
    none_for_false = next(m for m in mutants if "ensure_ascii=None" in m.diff)
    empty = tmp_path / "none-recorded.toml"
    empty.write_text("", encoding="utf-8")
    report = tmp_path / "report.json"
    argv = ["--only", off_by_one.id, "--only", none_for_false.id, "--report", str(report)]
    argv += ["--equivalents", str(empty), "--work", str(tmp_path / "work")]

    exit_code = cli.main(argv)

    assert exit_code == 1, capsys.readouterr()
    data = json.loads(report.read_text(encoding="utf-8"))
    assert (data["total"], data["killed"], data["survived"]) == (2, 1, 1)
    assert data["unexplained"] == [none_for_false.id]
    assert data["killed_mutants"][0]["lost"] == ["unicode_boundary"]
    written = sorted(p.stem for p in (tmp_path / "work" / "submissions").glob("*.py"))
    assert written == sorted([cli.BASELINE, cli.INDEPENDENT, off_by_one.id, none_for_false.id])
    assert none_for_false.id in capsys.readouterr().out
