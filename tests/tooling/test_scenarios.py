"""The committed corpus is what the generator writes: ten times the scenarios, smallest first."""

import json

from grader.hidden.judge.contract_model import expect
from grader.hidden.judge.corpus import CORPUS_FILE, families
from grader.hidden.judge.words import scenario_words
from grader.sandbox.inside.picture import json_text
from tooling.scenarios import sizes
from tooling.scenarios.generate import corpus_text

pytestmark = []

HAND_WRITTEN_SCENARIOS = 260  # what the hidden suite asked per submission before
PROGRAMS = "programs"  # the family of programs: several calls into one loaded submission
STAMPS = ("program", "received")  # what programs.stamped adds to each call


def test_the_committed_corpus_is_what_the_generator_writes():
    assert CORPUS_FILE.read_text(encoding="utf-8") == corpus_text()


def test_there_are_ten_times_the_hand_written_scenarios_in_every_family():
    counts = {name: len(entries) for name, entries in families().items()}
    assert sum(counts.values()) >= 10 * HAND_WRITTEN_SCENARIOS
    assert min(counts.values()) >= 100, counts


def test_each_family_lists_its_smallest_scenario_first():
    for name, entries in json.loads(CORPUS_FILE.read_text(encoding="utf-8")).items():
        if name == PROGRAMS:
            continue  # its calls stay in their program's order: its programs are sorted
        sizes = [len(json_text(entry["scenario"])) for entry in entries]
        assert sizes == sorted(sizes)


def test_the_programs_come_smallest_first_each_in_the_order_of_its_calls():
    entries = json.loads(CORPUS_FILE.read_text(encoding="utf-8"))[PROGRAMS]
    programs: list[list[dict]] = []
    for entry in entries:
        scenario = entry["scenario"]
        if scenario["program"] == 0:
            programs.append([])
        assert scenario["program"] == len(programs[-1])
        # As drawn: without the stamps the generator adds (programs.stamped).
        programs[-1].append({k: v for k, v in scenario.items() if k not in STAMPS})
    sizes = [len(json_text(calls)) for calls in programs]
    assert sizes == sorted(sizes)
    assert all(2 <= len(calls) <= 6 for calls in programs)


def test_values_of_hundreds_of_pieces_are_pinned_at_their_budget_and_one_byte_over():
    pinned = [expect(one) for one in sizes.budgets()]
    at_budget = [e for e in pinned if e.outcomes == (("success",),)]
    over = [e for e in pinned if e.outcomes == (("result_too_large",),)]
    assert len(at_budget) == len(over) == len(pinned) // 2
    assert {e.size for e in at_budget} >= {sizes.DEFAULT_BUDGET}
    assert {e.size for e in over} >= {sizes.DEFAULT_BUDGET + 1}


def test_megabytes_of_arguments_are_kept_in_the_corpus_as_a_recipe():
    text = CORPUS_FILE.read_text(encoding="utf-8")
    made = [e for entries in families().values() for e in entries if "arguments_made" in e.scenario]
    assert len(made) == len(sizes.ownership()) + 2 * len(sizes.programs())
    assert max(len(line) for line in text.splitlines()) < 100_000


def test_a_student_is_told_the_size_of_made_arguments_not_shown_them():
    made = [e for entries in families().values() for e in entries if "arguments_made" in e.scenario]
    for entry in made:
        arguments = entry.scenario["request"]["arguments"]
        size = len(json.dumps(arguments, ensure_ascii=False).encode("utf-8"))
        said = scenario_words(entry.scenario)
        assert f"a dict of {len(arguments)} keys, {size:,} bytes as JSON" in said
        assert len(said) < 2_000
