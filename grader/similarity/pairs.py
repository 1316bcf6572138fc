"""What a similarity run finds, as plain data: the pairs above the threshold, the top ones shown.

Kept apart from the comparing (numpy, copydetect) so the reports render it without importing
either.
"""

from dataclasses import dataclass

# A pair is listed when its score, the mean of its two shares, reaches this.
DEFAULT_THRESHOLD = 0.5
# How many of the top pairs report.html shows side by side; similarity.csv lists every pair.
PAIRS_SHOWN = 10

# (start, end) character offsets of a matching region in a student's code.
Region = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Pair:
    """Two students whose code overlaps: each one's share of their own code found in the other's.

    `student_a` sorts before `student_b`; `score`, what pairs rank by, is the mean of the two.
    """

    student_a: str
    student_b: str
    share_a: float
    share_b: float

    @property
    def score(self) -> float:
        """The mean of the two shares: high only when much of both students' code matches.

        Not the larger share (copydetect's report): a short honest answer is largely found in
        any longer one that does the same, and would rank with copies.
        """
        return round((self.share_a + self.share_b) / 2, 4)


@dataclass(frozen=True, slots=True)
class ShownPair:
    """A pair shown side by side: both students' code and the regions that match."""

    pair: Pair
    code_a: str
    code_b: str
    regions_a: tuple[Region, ...]
    regions_b: tuple[Region, ...]


@dataclass(frozen=True, slots=True)
class Similarity:
    """The result of comparing a class: every pair above `threshold`, highest first.

    `compared` counts the students whose code was compared; `shown`, the top pairs' code.
    """

    threshold: float
    compared: int
    pairs: tuple[Pair, ...]
    shown: tuple[ShownPair, ...]
