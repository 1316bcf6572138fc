"""Class mutations as data: one bug, the categories it breaks, and its edit of each reference.

A bug class is declared once (classes.py holds the table) and written as an exact text edit of
each reference solution whose shape has a place for it, so the hidden suite's verdict on one bug
can be compared across two differently written solutions: a verdict that changes with the
reference's shape is a gap in the suite, not in the reference.
"""

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from tooling.mutation.generate import Mutant, one_line_diff

# The file stems of the two correct solutions in fixtures/submissions/correct/.
FIRST = "reference"
SECOND = "second-reference"


@dataclass(frozen=True)
class Edit:
    """An exact text edit of one top-level function: `old`, found once inside it, becomes `new`."""

    function: str
    old: str
    new: str


@dataclass(frozen=True)
class ClassMutation:
    """One bug of a generated class: the categories it breaks, and its edit of each reference."""

    name: str
    categories: tuple[str, ...]
    first: Edit  # of reference.py
    second: Edit | None  # of second-reference.py; None where its shape has no place for the bug

    def edit(self, reference: str) -> Edit | None:
        """Return the edit of the reference whose file stem is `reference`; None if it has none."""
        if reference == FIRST:
            return self.first
        if reference == SECOND:
            return self.second
        raise ValueError(f"no reference solution is named {reference!r}")


def mutant_id(name: str, function: str, reference: str) -> str:
    """Return the id (the graded file's stem) of bug `name`'s mutant of `reference`'s `function`.

    The first reference's ids are `<function>-<bug>`, as they always were; the second's start
    with its stem, so a report says which solution a mutant came from.
    """
    own = f"{function}-{name}"
    return own if reference == FIRST else f"{reference}-{own}"


def apply_mutations(
    source: str, mutations: Iterable[ClassMutation], reference: str
) -> list[Mutant]:
    """Return one mutant of `source` for each mutation that has an edit of `reference`, in order.

    ValueError if an edit's `old` text is not exactly once in its function: the reference
    changed, and the edit must be written again for it.
    """
    spans = _function_spans(source)
    mutants = []
    for mutation in mutations:
        edit = mutation.edit(reference)
        if edit is None:
            continue
        mutated = _apply(source, spans, edit, mutation.name)
        line, diff = one_line_diff(source.splitlines(), mutated.splitlines())
        mutants.append(
            Mutant(
                mutant_id(mutation.name, edit.function, reference),
                edit.function,
                line,
                diff,
                mutated,
                mutation.categories,
            )
        )
    return mutants


def _apply(source: str, spans: dict[str, tuple[int, int]], edit: Edit, name: str) -> str:
    """Return `source` with `edit` made inside its function; ValueError if it does not fit."""
    if edit.function not in spans:
        raise ValueError(f"{name}: there is no top-level function {edit.function}")
    first, last = spans[edit.function]
    lines = source.splitlines(keepends=True)
    body = "".join(lines[first:last])
    if body.count(edit.old) != 1:
        raise ValueError(f"{name}: {edit.old!r} is not once in {edit.function}")
    return "".join(lines[:first]) + body.replace(edit.old, edit.new) + "".join(lines[last:])


def _function_spans(source: str) -> dict[str, tuple[int, int]]:
    """Return each top-level function's (first line index, end line index) in `source`."""
    tree = ast.parse(source)
    return {
        node.name: (node.lineno - 1, node.end_lineno or node.lineno)
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
    }
