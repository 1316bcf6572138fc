"""Decoded values on the trusted side: walked within the submission's time, shown within bounds."""

import math
import reprlib
from collections.abc import Iterator
from typing import Any

from grader.sandbox.client import Allowance
from grader.sandbox.inside.picture import SHARED_TEXT, Limit, Opaque, Unhashed, type_name

# A walk reads the processor clock once per CHECK_EVERY units of work: a node, or TEXT_UNIT
# characters of a text read. Under a millisecond of work (tests/grader/sandbox/test_walks.py
# measures it), against the microsecond a read of the clock costs.
CHECK_EVERY = 256
TEXT_UNIT = 1024
SHOWN_WIDTH = 300  # characters of a value a message shows at most
_BIG_INT_BITS = 256  # an int longer than this is shown by its size, not its digits
_DIGITS_PER_BIT = math.log10(2)


def shown(value: object, width: int = SHOWN_WIDTH) -> str:
    """Return a short text showing a decoded value, for a message; never fails, never grows.

    A student's value may be a list of one long text repeated ten thousand times, or an int
    whose digits Python refuses to write: its repr would be gigabytes or an exception. Here
    every level, item and text is cut before anything is built (reprlib), and the result is
    at most `width` characters.
    """
    try:
        text = _Shower().repr(value)
    except Exception:  # a value no rule here foresaw: its type is still worth saying
        text = f"<{type_name(type(value))}>"
    return text if len(text) <= width else text[: width - 1] + "…"


class _Shower(reprlib.Repr):
    """reprlib's bounded repr, taught the trusted side's stand-ins and very large ints."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 4
        self.maxstring = self.maxother = 80
        self.maxlong = 60
        self.maxdict = self.maxlist = self.maxtuple = self.maxset = 8

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > _BIG_INT_BITS:
            digits = int(x.bit_length() * _DIGITS_PER_BIT) + 1
            return f"<an int of about {digits} digits>"
        return super().repr_int(x, level)

    def repr_Opaque(self, x: Opaque, level: int) -> str:
        name = self.repr_str(x.type_name, level)[1:-1]
        if x.content is None:
            return f"<{name}>"
        return f"<{name} of {self.repr1(x.content, level - 1)}>"

    def repr_Unhashed(self, x: Unhashed, level: int) -> str:
        return f"<{x.kind} of {self.repr_tuple(x.items, level)}>"

    def repr_Limit(self, x: Limit, level: int) -> str:
        return f"<a value cut by the grader ({x.reason})>"


class Walk:
    """One walk of a decoded student value on the trusted side: each long text read once, timed.

    `untag` rebuilds every back-reference to a long text as that very str object (a long text
    crosses once per picture), so a reply of 230 KB can hold one text of 100,000 characters a
    thousand times. A walk that read every copy did 100 MB of work nobody charged, and the next
    student in the job waited for it. A walk reads a long text once, however often the value
    holds it (by identity: the value is alive while it is walked, so ids stay unique), and
    every CHECK_EVERY units asks the submission's allowance whether its trusted-side time is
    spent, raising SandboxTimeout if so: a walk overruns that time by one stretch at most.
    """

    def __init__(self, allowance: Allowance | None = None) -> None:
        """Charge `allowance`, the submission's; with None, only count (a value of the grader's)."""
        self.allowance = allowance
        self.units = 0
        self.texts: set[int] = set()  # ids of the long texts read
        self.pairs: dict[tuple[int, int], bool] = {}  # ids of long texts compared: equal?

    def step(self, units: int = 1) -> None:
        """Count `units` of work; once CHECK_EVERY have been done, check the allowance."""
        self.units += units
        if self.units >= CHECK_EVERY:
            self.units = 0
            if self.allowance is not None:
                self.allowance.check()

    def first_reading(self, text: str) -> bool:
        """Say whether this walk reads `text` for the first time, charging what reading costs."""
        if len(text) < SHARED_TEXT:
            self.step()
            return True
        if id(text) in self.texts:
            self.step()
            return False
        self.texts.add(id(text))
        self.step(1 + len(text) // TEXT_UNIT)
        return True

    def same_text(self, left: str, right: str) -> bool:
        """Say whether two texts are equal, comparing each pair of long texts once."""
        if len(left) < SHARED_TEXT or len(left) != len(right):
            self.step()
            return left == right
        pair = (id(left), id(right))
        known = self.pairs.get(pair)
        if known is None:
            self.step(1 + len(left) // TEXT_UNIT)
            known = self.pairs[pair] = left == right
        else:
            self.step()
        return known


def strings_in(value: object, walk: Walk) -> Iterator[str]:
    """Yield every string in a decoded value: keys, items and the type names of foreign objects.

    Each text once, however often the value holds it, and with the walk's time checked on the
    way (Walk): what a student's reply holds a thousand times is read once. Depth first, in
    the value's order, from a stack of its own: a generator per level would make each string
    climb through every level above it.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if walk.first_reading(item):
                yield item
            continue
        walk.step()
        if isinstance(item, dict):
            stack.extend(part for pair in reversed(item.items()) for part in reversed(pair))
        elif isinstance(item, list | tuple):
            stack.extend(reversed(item))
        elif isinstance(item, Unhashed):
            stack.append(item.items)
        elif isinstance(item, Opaque):
            stack += [item.content, item.type_name]
        elif isinstance(item, Limit):
            stack.append(item.prefix)


def same_json(left: Any, right: Any, walk: Walk | None = None) -> bool:
    """Say whether two values are equal, with equal exact types at every depth (any key order).

    Against a value of the grader's own, the work is bounded by that value (lengths are
    compared first). Two of the student's values are compared with `walk`, their observation's
    (Observation.walk): each pair of long texts is compared once, however often it repeats,
    and the submission's time is checked on the way.
    """
    return _same(left, right, Walk() if walk is None else walk)


def _same(left: Any, right: Any, walk: Walk) -> bool:
    if type(left) is not type(right):
        return False
    if type(left) is str:
        return walk.same_text(left, right)
    walk.step()
    if type(left) is float:
        return left == right or (math.isnan(left) and math.isnan(right))
    if type(left) in (list, tuple):
        if len(left) != len(right):
            return False
        return all(_same(a, b, walk) for a, b in zip(left, right, strict=True))
    if type(left) is dict:
        same_keys = left.keys() == right.keys()
        return same_keys and all(_same(left[k], right[k], walk) for k in left)
    return bool(left == right)
