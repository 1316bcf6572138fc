"""Mutation operators of our own, for the mistakes students make that mutmut's set never makes.

mutmut mutates numbers, strings, names, operators and arguments, but never the class tuple of
an `except` or an `isinstance`, an exact-type check for `isinstance`, a shallow copy for a deep
one, or another encoding in a byte count. Each operator takes a node and yields its mutations,
the same interface as mutmut's own, so the visitor applies both sets alike.
"""

from collections.abc import Iterable

import libcst as cst

# A byte count in another unit is the classic budget bug (UTF-16 code units, code points).
ENCODINGS = {'"utf-8"': ('"utf-16-le"', '"latin-1"'), "'utf-8'": ("'utf-16-le'", "'latin-1'")}


def operator_drop_tuple_element(node: cst.Tuple) -> Iterable[cst.CSTNode]:
    """Yield the tuple without each of its elements: an exception class left out, say."""
    if len(node.elements) < 2:
        return
    for index in range(len(node.elements)):
        kept = [element for place, element in enumerate(node.elements) if place != index]
        last = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        yield node.with_changes(elements=[*kept[:-1], last])


def operator_exact_type_check(node: cst.Call) -> Iterable[cst.CSTNode]:
    """Yield `type(x) is C` for `isinstance(x, C)`: subclasses and mix-ins then slip through."""
    if not (isinstance(node.func, cst.Name) and node.func.value == "isinstance"):
        return
    if len(node.args) != 2 or isinstance(node.args[1].value, cst.Tuple):
        return
    subject, kind = (cst.Module([]).code_for_node(arg.value) for arg in node.args)
    yield cst.parse_expression(f"type({subject}) is {kind}")


def operator_shallow_copy(node: cst.Attribute) -> Iterable[cst.CSTNode]:
    """Yield `copy.copy` for `copy.deepcopy`: nested arguments are then shared."""
    if node.attr.value == "deepcopy":
        yield node.with_changes(attr=cst.Name("copy"))


def operator_other_encoding(node: cst.SimpleString) -> Iterable[cst.CSTNode]:
    """Yield another encoding for "utf-8": the byte budget is then counted in the wrong unit."""
    for other in ENCODINGS.get(node.value, ()):
        yield node.with_changes(value=other)


COURSE_OPERATORS = [
    (cst.Tuple, operator_drop_tuple_element),
    (cst.Call, operator_exact_type_check),
    (cst.Attribute, operator_shallow_copy),
    (cst.SimpleString, operator_other_encoding),
]
