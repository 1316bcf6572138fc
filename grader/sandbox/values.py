"""Decoded values on the trusted side, shown within bounds in a message."""

import math
import reprlib

from grader.sandbox.inside.picture import Limit, Opaque, Unhashed, type_name

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
