"""Compare decoded values as the contract does: equal, with equal exact types at every depth."""

import math
from typing import Any


def same_json(left: Any, right: Any) -> bool:
    """Say whether two values are equal, with equal exact types at every depth (any key order)."""
    if type(left) is not type(right):
        return False
    if type(left) is float:
        return left == right or (math.isnan(left) and math.isnan(right))
    if type(left) in (list, tuple):
        return len(left) == len(right) and all(map(same_json, left, right))
    if type(left) is dict:
        return left.keys() == right.keys() and all(same_json(left[k], right[k]) for k in left)
    return bool(left == right)
