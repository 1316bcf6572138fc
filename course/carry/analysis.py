"""Static reading of a cell's source: what it defines, what it uses, what it leaves unfinished.

Nothing here runs a cell. Names are read with `symtable`, so scopes are Python's own (a
comprehension's variable or a class body's name is not a global); a source that does not parse
defines and uses nothing.
"""

import ast
import functools
import symtable

STUB = "NotImplementedError"  # what an exercise's body raises until the student writes it

# Each answer below is kept per distinct source, as a few names: a class's notebooks share most
# cells (the lessons' own), and reading every student's copy of each again was most of the time
# it takes to load a class. (Keeping the parsed trees instead held 7 MiB more at 100 students.)
_REMEMBERED = 512  # distinct sources, each kept as its text and a few names


def _tree(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _table(source: str) -> symtable.SymbolTable | None:
    try:
        return symtable.symtable(source, "<cell>", "exec")
    except (SyntaxError, ValueError):
        return None


def defined_names(source: str) -> set[str]:
    """Return the names a cell binds at its top level (assignments, defs, classes, imports)."""
    return set(_defined_names(source))


@functools.lru_cache(maxsize=_REMEMBERED)
def _defined_names(source: str) -> frozenset[str]:
    table = _table(source)
    if table is None:
        return frozenset()
    names = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    return frozenset(names | _declared_globals(table))


def _declared_globals(table: symtable.SymbolTable) -> set[str]:
    names: set[str] = set()
    for child in table.get_children():
        names |= {s.get_name() for s in child.get_symbols() if s.is_declared_global()}
        names |= _declared_globals(child)
    return names


def used_globals(source: str) -> set[str]:
    """Return the global names a cell reads, at its top level or inside its functions."""
    return set(_used_globals(source))


@functools.lru_cache(maxsize=_REMEMBERED)
def _used_globals(source: str) -> frozenset[str]:
    table = _table(source)
    return frozenset() if table is None else frozenset(_reads(table, top=True))


def _reads(table: symtable.SymbolTable, top: bool = False) -> set[str]:
    names = {
        s.get_name() for s in table.get_symbols() if s.is_referenced() and (top or s.is_global())
    }
    for child in table.get_children():
        names |= _reads(child)
    return names


def stubbed_functions(source: str) -> set[str]:
    """Return the top-level functions of a cell whose body still raises NotImplementedError."""
    return set(_stubbed_functions(source))


@functools.lru_cache(maxsize=_REMEMBERED)
def _stubbed_functions(source: str) -> frozenset[str]:
    tree = _tree(source)
    if tree is None:
        return frozenset()
    return frozenset(
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and any(_raises_stub(statement) for statement in node.body)
    )


def _raises_stub(statement: ast.stmt) -> bool:
    if not isinstance(statement, ast.Raise) or statement.exc is None:
        return False
    raised = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
    return isinstance(raised, ast.Name) and raised.id == STUB


@functools.lru_cache(maxsize=_REMEMBERED)
def has_star_import(source: str) -> bool:
    """Return True when the cell runs `from x import *`, which defines names no reading lists."""
    tree = _tree(source)
    return tree is not None and any(
        isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
        for node in ast.walk(tree)
    )
