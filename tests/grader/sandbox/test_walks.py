"""Walks of decoded student values: a text held many times is read once, and time is checked.

A reply can hold one long text thousands of times for the price of sending it once (pictures
carry a long text once, then back-references, which `untag` rebuilds as that very object). The
trusted side's walks read it once per walk, and check the submission's allowance every
CHECK_EVERY units of work, so a walk stops a stretch after the submission's time is spent.
"""

import time

import pytest

from grader.hidden.probes import MARKER
from grader.sandbox.client import Allowance
from grader.sandbox.inside.picture import MAX_STR, SHARED_TEXT, Limit, Opaque, Unhashed
from grader.sandbox.problems import SandboxTimeout
from grader.sandbox.values import CHECK_EVERY, Walk, same_json, strings_in

pytestmark = []

# Every copy of a text of MAX_STR characters, 20,000 times: 4 GB read by a walk without memory.
LONG = "e" * MAX_STR
REPEATS = 20_000
# What one stretch of a walk may cost, between two reads of the clock, on a slow shared host.
STRETCH_SECONDS = 0.02
# The words the redaction scan looks for, beside the marker (grader/hidden/test_redaction.py).
NAMES = ["Traceback", "NotFoundError", "ExceptionGroup"]


def scanned(value, walk):
    """The redaction scan's work on every text of `value`: what it found, as the rules do."""
    return [t for t in strings_in(value, walk) if MARKER in t or any(n in t for n in NAMES)]


def test_strings_come_in_the_values_order():
    value = {"a": ["b", ("c",)], "d": Unhashed("set", ("e",)), "f": Limit("cut", "g")}
    value["h"] = Opaque("T", "dict", {"i": None})
    assert list(strings_in(value, Walk())) == ["a", "b", "c", "d", "e", "f", "g", "h", "T", "i"]


def test_a_text_held_many_times_is_read_once_per_walk():
    value = {"k": [LONG] * REPEATS, "o": Opaque("T", "dict", {"x": LONG})}
    assert list(strings_in(value, Walk())) == ["k", LONG, "o", "T", "x"]
    # An equal text that is another object was sent again, and is read again.
    assert list(strings_in([LONG, "".join(LONG)], Walk())) == [LONG, LONG]


def test_scanning_a_text_held_many_times_costs_about_one_reading():
    started = time.thread_time()
    assert scanned([LONG] * REPEATS, Walk()) == []
    # Without the walk's memory: 20,000 readings of 200,000 characters, minutes here.
    assert time.thread_time() - started < 0.5


def test_same_json_compares_each_pair_of_long_texts_once():
    copy = "".join(LONG)  # equal, another object: as two observations of one reply hold it
    started = time.thread_time()
    assert same_json([LONG] * REPEATS, [copy] * REPEATS, Walk())
    assert time.thread_time() - started < 0.5
    assert not same_json([LONG] * REPEATS, [LONG[:-1] + "f"] * REPEATS, Walk())


def test_short_texts_and_unequal_lengths_are_compared_as_they_are():
    assert same_json(["a" * (SHARED_TEXT - 1)], ["a" * (SHARED_TEXT - 1)], Walk())
    assert not same_json([LONG], [LONG + "e"], Walk())


def spent_allowance(seconds=0.0):
    """An allowance of `seconds` of the trusted side's time, with that time already spent."""
    allowance = Allowance(1 << 30, seconds)
    while not allowance.spent_time():
        pass
    return allowance


def test_a_walk_stops_within_a_stretch_once_the_submissions_time_is_spent():
    walk = Walk(spent_allowance())
    read = 0
    with pytest.raises(SandboxTimeout):
        for _text in strings_in(["t"] * (10 * CHECK_EVERY), walk):
            read += 1
    assert read <= CHECK_EVERY


def test_a_walk_without_an_allowance_only_counts():
    assert len(list(strings_in(["t"] * (10 * CHECK_EVERY), Walk()))) == 10 * CHECK_EVERY


def test_comparing_two_of_the_students_values_stops_too():
    walk = Walk(spent_allowance())
    with pytest.raises(SandboxTimeout):
        same_json([[1]] * (10 * CHECK_EVERY), [[1]] * (10 * CHECK_EVERY), walk)


def test_the_redaction_scan_works_past_the_submissions_time_by_one_stretch_at_most():
    """The margin: texts each read once, the costliest to search, scanned until time is up."""
    # Distinct texts (each read in full), of a letter the words searched for hold.
    value = ["".join(["e"] * (20 * SHARED_TEXT)) for _ in range(2_000)]
    limit = 0.05
    allowance = Allowance(1 << 30, limit)
    with pytest.raises(SandboxTimeout):
        scanned(value, Walk(allowance))
    overrun = time.thread_time() - allowance.cpu_start - limit
    print(f"the scan worked {overrun * 1000:.1f} ms past the limit")
    assert overrun < STRETCH_SECONDS
