"""The committed corpus is what the generator writes: ten times the scenarios, smallest first."""

import json

from grader.hidden.generated.corpus import CORPUS_FILE, families
from grader.sandbox.inside.picture import json_text
from tooling.scenarios.generate import corpus_text

pytestmark = []

HAND_WRITTEN_SCENARIOS = 260  # what the hidden suite asked per submission before


def test_the_committed_corpus_is_what_the_generator_writes():
    assert CORPUS_FILE.read_text(encoding="utf-8") == corpus_text()


def test_there_are_ten_times_the_hand_written_scenarios_in_every_family():
    counts = {name: len(entries) for name, entries in families().items()}
    assert sum(counts.values()) >= 10 * HAND_WRITTEN_SCENARIOS
    assert min(counts.values()) >= 100, counts


def test_each_family_lists_its_smallest_scenario_first():
    for entries in json.loads(CORPUS_FILE.read_text(encoding="utf-8")).values():
        sizes = [len(json_text(entry["scenario"])) for entry in entries]
        assert sizes == sorted(sizes)
