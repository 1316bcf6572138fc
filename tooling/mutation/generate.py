"""Make mutants of a module's functions with mutmut's own operators, each a whole module.

mutmut runs a mutant by importing one file holding every mutant behind trampolines; the
grader instead grades one submission file a student, so each mutant here is the whole
module with exactly one mutation applied, written as its own `.py` file.
"""

import difflib
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import libcst as cst
from mutmut.mutation.file_mutation import MutationVisitor, deep_replace
from mutmut.mutation.mutators import mutation_operators
from mutmut.mutation.pragma_handling import IgnoredCode, PragmaVisitor

from tooling.mutation.operators import COURSE_OPERATORS

# Long enough that two mutants of one function never collide, short enough to read in a table.
DIGEST_LENGTH = 8


@dataclass(frozen=True)
class Mutant:
    """One mutation of one function, with the whole mutated module ready to grade."""

    id: str  # "<function>-<digest of the mutated function>": stable while the function is
    function: str
    line: int  # 1-based line of the first changed line in the original module
    diff: str  # "<original line(s)> -> <mutated line(s)>", stripped, on one line
    source: str  # the whole module with this one mutation applied
    # The categories it must lose points in, for a mutant of a known bug class (classes.py);
    # empty for mutmut's and our operators' mutants, which may lose points anywhere.
    categories: tuple[str, ...] = ()


def generate_mutants(source: str, filename: str = "reference.py") -> list[Mutant]:
    """Return every mutant mutmut's operators (and ours) make in `source`'s top-level functions.

    Mutants come in mutmut's visiting order (by position); two mutations that give the same
    function text are one mutant. `# pragma: no mutate` comments are honoured as in mutmut.
    """
    wrapper = cst.MetadataWrapper(cst.parse_module(source))
    # mutmut's create_mutations also applies its `do_not_mutate_patterns` setting, which it reads
    # from the project's mutmut config and fails without one (it guesses source folders from the
    # working directory); the course has no mutmut project, so build the visitor directly.
    pragmas = PragmaVisitor(filename)
    wrapper.visit(pragmas)
    ignored = IgnoredCode(
        no_mutate_lines=pragmas.no_mutate_lines,
        ignore_node_lines=pragmas.ignore_node_lines,
        ignore_pattern_lines=set(),
    )
    visitor = MutationVisitor(mutation_operators, ignored)
    # Visiting with a visitor (not a transformer) returns the wrapper's own module, the tree the
    # mutations' nodes belong to, so deep_replace finds them by identity.
    module = wrapper.visit(visitor)
    functions = top_level_functions(module)
    # Every node inside a docstring statement, by identity: the string and its parts.
    docstrings = {id(node) for doc in docstring_nodes(functions) for node in _walk(doc)}
    mutants: dict[str, Mutant] = {}
    original_lines = module.code.splitlines()
    found = [
        (m.contained_by_top_level_function, m.original_node, m.mutated_node)
        for m in visitor.mutations
    ]
    # Ours walk every node: mutmut skips the calls they aim at (isinstance, len) on purpose.
    found += course_mutations(functions)
    for function, original, mutated_node in found:
        # Only function bodies are the lesson steps the hidden suite judges: module-level code is
        # the imports of the course's names. mutmut already leaves docstrings alone (they do not
        # run); the check keeps that true whatever its operators do to strings.
        if function not in functions or id(original) in docstrings:
            continue
        mutation = _Change(original, mutated_node)
        mutated_function = deep_replace(function, mutation.original_node, mutation.mutated_node)
        digest = hashlib.sha256(module.code_for_node(mutated_function).encode()).hexdigest()
        mutant_id = f"{function.name.value}-{digest[:DIGEST_LENGTH]}"
        if mutant_id in mutants:
            continue
        mutated = deep_replace(module, mutation.original_node, mutation.mutated_node).code
        line, diff = one_line_diff(original_lines, mutated.splitlines())
        mutants[mutant_id] = Mutant(mutant_id, function.name.value, line, diff, mutated)
    return list(mutants.values())


@dataclass(frozen=True)
class _Change:
    original_node: cst.CSTNode
    mutated_node: cst.CSTNode


def course_mutations(functions: list[cst.FunctionDef]) -> list[tuple]:
    """Return (function, node, mutated node) for every mutation our own operators make."""
    found = []
    for function in functions:
        for node in _walk(function.body):
            for kind, operator in COURSE_OPERATORS:
                if isinstance(node, kind):
                    found += [(function, node, mutated) for mutated in operator(node)]
    return found


def top_level_functions(module: cst.Module) -> list[cst.FunctionDef]:
    """Return the module's top-level function definitions, in order."""
    return [node for node in module.body if isinstance(node, cst.FunctionDef)]


def docstring_nodes(functions: Iterable[cst.FunctionDef]) -> list[cst.CSTNode]:
    """Return the docstring statement of each function that has one."""
    found = []
    for function in functions:
        body = function.body.body
        first = body[0] if body else None
        if (
            isinstance(first, cst.SimpleStatementLine)
            and len(first.body) == 1
            and isinstance(first.body[0], cst.Expr)
            and isinstance(first.body[0].value, cst.SimpleString | cst.ConcatenatedString)
        ):
            found.append(first)
    return found


def _walk(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """Yield `node` and every node below it."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def one_line_diff(original: list[str], mutated: list[str]) -> tuple[int, str]:
    """Return the first changed line (1-based) and `<old> -> <new>` for the changed lines."""
    matcher = difflib.SequenceMatcher(None, original, mutated, autojunk=False)
    changes = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    if not changes:
        return 0, "(no change)"
    _, first, last, new_first, new_last = changes[0]
    for _, _, old_end, _, new_end in changes[1:]:
        last, new_last = old_end, new_end
    # The lines between two changed spans are shown too, so the one line reads as code.
    old = " ⏎ ".join(line.strip() for line in original[first:last])
    new = " ⏎ ".join(line.strip() for line in mutated[new_first:new_last])
    return first + 1, f"{old} -> {new}"


def write_mutants(mutants: Iterable[Mutant], folder: Path) -> list[Path]:
    """Write each mutant to `folder/<id>.py`, the file stem the grader takes as the student id."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for mutant in mutants:
        path = folder / f"{mutant.id}.py"
        path.write_text(mutant.source, encoding="utf-8")
        paths.append(path)
    return paths
