"""Compare a class's code, pair by pair, without scoring every pair.

    result = similarity_of(found, course, threshold=0.5)    # a grader.similarity.pairs.Similarity

Each student's code is read once (the load step's own reading, grader.intake.load) and turned
into fingerprints once. An index from each fingerprint to the students who have it counts, for
every pair, the fingerprints they share; only a pair sharing enough of either student's
fingerprints to come near the threshold is scored with copydetect's `compare_files`, which says
how much of each student's code lies in matching regions. copydetect's own CopyDetector scores
all n² pairs in Python; with the index, a class of a thousand is scored in seconds (bench/
similarity.py measures it).

Nothing here decides or changes a grade: it reads the submissions as the grading did, and its
result goes only to similarity.csv and the class report.
"""

from collections.abc import Iterator, Sequence

import numpy as np
from copydetect import compare_files

from course.manifest import Course
from grader.intake import ids
from grader.intake.discover import Found
from grader.intake.load import load
from grader.similarity.fingerprints import Fingerprint, boilerplate_hashes, fingerprint, joined
from grader.similarity.pairs import PAIRS_SHOWN, Pair, ShownPair, Similarity

# A pair is scored when the fingerprints it shares are at least this part of the threshold, as
# a share of either student's fingerprints: matching regions cover about the share of
# fingerprints they hold, and a mean reaches the threshold only if one share does, so a pair
# below it cannot come near the threshold.
PREFILTER = 0.5
# Matching regions shorter than this, in filtered characters (about three lines of code), are
# not a pair: a student who wrote almost nothing of their own shares a line with anyone.
MIN_OVERLAP = 60


def class_code(found: Sequence[Found], course: Course) -> Iterator[tuple[str, str]]:
    """Yield (student, the code they wrote) for every student whose code could be read.

    The code is the load step's: the exercise cells and the cells a student added, or their
    `.py` file. Refused ids, and submissions with nothing readable, are left out.
    """
    refused = ids.refusals(item.student for item in found)
    for item in sorted(found, key=lambda f: f.student):
        if item.student in refused:
            continue
        try:
            submission = load(item, course)
        except Exception:  # the grading said what went wrong; nothing to compare
            continue
        if submission.units and submission.error is None and submission.failure is None:
            yield item.student, joined(unit.source for unit in submission.units)


def similarity_of(found: Sequence[Found], course: Course, threshold: float) -> Similarity:
    """Compare the code of every student in `found`; return the pairs at `threshold` or above."""
    boilerplate = boilerplate_hashes(course)
    code = class_code(found, course)
    prints = [fingerprint(student, text, boilerplate) for student, text in code]
    return compare(prints, threshold)


def compare(prints: Sequence[Fingerprint], threshold: float) -> Similarity:
    """Return every pair of `prints` (by student id) whose score reaches `threshold`."""
    pairs = [
        pair
        for a, b in _candidates(prints, threshold)
        if (pair := _scored(prints[a], prints[b], threshold)) is not None
    ]
    pairs.sort(key=lambda p: (-p.score, p.student_a, p.student_b))
    by_name = {p.filename: p for p in prints}
    shown = tuple(_shown(pair, by_name) for pair in pairs[:PAIRS_SHOWN])
    return Similarity(threshold, len(prints), tuple(pairs), shown)


def _candidates(prints: Sequence[Fingerprint], threshold: float) -> list[tuple[int, int]]:
    """Return the pairs (a < b) that share enough fingerprints to be scored."""
    holders: dict[int, list[int]] = {}
    for index, prints_of in enumerate(prints):
        for value in prints_of.hashes:
            holders.setdefault(value, []).append(index)
    shared = np.zeros((len(prints), len(prints)), dtype=np.int32)
    for students in holders.values():
        if len(students) > 1:
            together = np.asarray(students)
            shared[np.ix_(together, together)] += 1
    sizes = np.maximum(np.array([len(p.hashes) for p in prints], dtype=np.float64), 1.0)
    share = shared / sizes[:, np.newaxis]  # row a: the part of a's fingerprints b has
    near = np.maximum(share, share.T) >= threshold * PREFILTER
    a, b = np.nonzero(np.triu(near, k=1))
    return list(zip(a.tolist(), b.tolist(), strict=True))


def _scored(first: Fingerprint, second: Fingerprint, threshold: float) -> Pair | None:
    """Return the pair scored by copydetect if it reaches `threshold`, else None."""
    overlap, (share_a, share_b), _regions = compare_files(first, second)
    pair = Pair(first.filename, second.filename, round(float(share_a), 4), round(float(share_b), 4))
    return pair if overlap >= MIN_OVERLAP and pair.score >= threshold else None


def _shown(pair: Pair, by_name: dict[str, Fingerprint]) -> ShownPair:
    """Return `pair` with both students' code and the regions copydetect found matching."""
    first, second = by_name[pair.student_a], by_name[pair.student_b]
    _overlap, _shares, (regions_a, regions_b) = compare_files(first, second)
    return ShownPair(
        pair, first.raw_code, second.raw_code, _regions(regions_a), _regions(regions_b)
    )


def _regions(slices: np.ndarray) -> tuple[tuple[int, int], ...]:
    """Return copydetect's slices (starts in row 0, ends in row 1) as (start, end) pairs."""
    if len(slices) == 0 or len(slices[0]) == 0:
        return ()
    return tuple((int(start), int(end)) for start, end in zip(slices[0], slices[1], strict=True))
