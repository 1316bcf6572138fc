"""The students' table's sort orders, as compact arrays: one rank per student, column and direction.

The table sorts with CSS alone (grader.reports.class_page), so every row carries its place in
every sort. Those places are worked out here from one array of a column's sort keys at a time,
never from the students themselves: a class of thousands costs a few bytes per student and sort.

Students come in by student id, so a tie in a column keeps that order, lowest first and highest
first alike: the same order as sorting by (key, student id), then stably by key, reversed.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence

Ranks = dict[tuple[str, str], "array[int]"]  # (column, "up" or "down") -> each student's place
SortKeys = Sequence[float] | Sequence[tuple[bool, float]]  # a column's keys, by position


def rank_type(count: int) -> str:
    """Return the array type code that holds places up to `count`: two bytes while they fit."""
    return "H" if count <= 1 << 16 else "L"


def column_ranks(count: int, repeats: Sequence[int], keys: dict[str, SortKeys]) -> Ranks:
    """Return the places of `count` students by id in the student column and each of `keys`.

    `keys` is emptied a column at a time, so each column's keys are freed once it is sorted.
    """
    ranks: Ranks = {}
    ranks["student", "up"], ranks["student", "down"] = student_ranks(count, repeats)
    for column in list(keys):
        ranks[column, "up"], ranks[column, "down"] = ranks_by_key(keys.pop(column))
    return ranks


def ranks_by_key(keys: SortKeys) -> tuple[array[int], array[int]]:
    """Return (lowest first, highest first) places of each key; equal keys keep their order."""
    count = len(keys)
    ascending = sorted(range(count), key=keys.__getitem__)
    up, down = _zeros(count), _zeros(count)
    start = 0
    for place, position in enumerate(ascending):
        up[position] = place
        if place + 1 == count or keys[ascending[place + 1]] != keys[position]:
            # Equal keys ascending[start:place + 1] come first in their order, highest first.
            for offset in range(start, place + 1):
                down[ascending[offset]] = count - place - 1 + offset - start
            start = place + 1
    return up, down


def student_ranks(count: int, repeats: Sequence[int]) -> tuple[array[int], array[int]]:
    """Return the student column's places, for `count` students by id.

    `repeats` are the positions whose student id is the one before theirs (a list given
    twice): they tie, and keep their order both ways.
    """
    up = array(rank_type(count), range(count))
    down = _zeros(count)
    repeated = set(repeats)
    start = 0
    for end in range(1, count + 1):
        if end == count or end not in repeated:
            for position in range(start, end):
                down[position] = count - end + position - start
            start = end
    return up, down


def time_keys(seconds: Sequence[float]) -> SortKeys:
    """Return sort keys for times where NaN stands for "not timed": after every time, lowest first.

    Infinity stands in for "not timed" unless a time is infinite itself, which needs pairs.
    """
    if math.inf in seconds:
        return [(math.isnan(value), 0.0 if math.isnan(value) else value) for value in seconds]
    return array("d", (math.inf if math.isnan(value) else value for value in seconds))


def _zeros(count: int) -> array[int]:
    return array(rank_type(count), [0]) * count
