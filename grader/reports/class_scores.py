"""The class report's score distribution: its bands and the sentence of median and quartiles.

Both are worked out from the graded students' scores alone, handed over as one compact array.
"""

import math
from collections.abc import Sequence
from statistics import median, quantiles

from grader.reports.charts import Bar
from grader.reports.feedback import format_points

CENTS = 100
# Band widths tried, in cents, finest first: the finest that needs at most MAX_BANDS bands from
# the lowest score to full marks is used, so a class that mostly passes is spread out (one-point
# bands from 0 to 70, half points when every score is within 35 points of full marks).
BAND_WIDTHS = (50, 100, 200, 250, 500, 1000)
MAX_BANDS = 70
AXIS_LABELS = 8  # at most this many band boundaries are written under the score chart


def score_bands(scores: Sequence[float], full_marks: float) -> list[Bar]:
    """Return the score histogram: equal bands from the lowest score up, then full marks apart."""
    top = round(full_marks * CENTS)
    low = min(
        (cents for cents in (round(score * CENTS) for score in scores) if cents < top),
        default=max(0, top - 1000),
    )
    for width in BAND_WIDTHS:
        start = low // width * width
        count = math.ceil((top - start) / width)
        if count <= MAX_BANDS:
            break
    inside, full = [0] * max(count, 0), 0
    for score in scores:
        cents = round(score * CENTS)
        if cents >= top:
            full += 1
        elif cents >= start:  # below top, so within the last band
            inside[(cents - start) // width] += 1
    step = _label_step(width, count)
    bars = []
    for index, students in enumerate(inside):
        lower, upper = start + index * width, min(top, start + (index + 1) * width)
        label = f"{_points(lower)}–{_points(upper)}"
        axis = _points(lower) if lower % step == 0 else ""
        title = f"{_points(lower)} to under {_points(upper)} points: {counted(students, 'student')}"
        bars.append(Bar(label, students, title, axis))
    title = f"Full marks ({_points(top)} points): {counted(full, 'student')}"
    bars.append(Bar("full marks", full, title, _points(top) + " ✓", css="bar full"))
    return bars


def _label_step(width: int, count: int) -> int:
    """Return the spacing, in cents, of the band boundaries written under the score chart."""
    for multiple in (1, 2, 4, 5, 10, 20, 40):
        if count / multiple <= AXIS_LABELS:
            return width * multiple
    return width * count


def score_sentence(scores: Sequence[float], at_full_marks: int) -> str:
    """Return one sentence with the median, quartiles and share at full marks of sorted scores."""
    if not scores:
        return "No student was graded."
    parts = [f"Median {format_points(median(scores))}"]
    if len(scores) >= 2:
        low, _, high = quantiles(scores, n=4, method="inclusive")
        parts.append(f"middle half from {format_points(low)} to {format_points(high)}")
    parts.append(f"{percent(at_full_marks, len(scores))}% at full marks")
    return "; ".join(parts) + "."


def counted(number: int, noun: str) -> str:
    """Return "1 student", "2 students": a number and its noun."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def percent(part: int, whole: int) -> float:
    """Return `part` as a percentage of `whole`, to one decimal; 0 of nothing."""
    return round(100 * part / whole, 1) if whole else 0.0


def _points(cents: int) -> str:
    return f"{cents / CENTS:g}"
