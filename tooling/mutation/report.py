"""Sum up the verdicts: counts, the mutation score, what killed what, and every survivor."""

from collections import Counter
from dataclasses import asdict, dataclass, field

from tooling.mutation.classify import COMPLETED, Equivalent, Verdict
from tooling.mutation.generate import Mutant


@dataclass(frozen=True)
class Survivor:
    """A mutant that scored full marks, and whether it is recorded as equivalent."""

    id: str
    line: int
    diff: str
    equivalent: bool
    why: str | None


@dataclass(frozen=True)
class Killed:
    """A mutant the hidden suite killed, and where it lost points."""

    id: str
    line: int
    diff: str
    lost: tuple[str, ...]
    status: str


@dataclass
class Summary:
    """Everything the report says, in a form that is also its JSON."""

    total: int
    killed: int
    survived: int
    equivalent: int
    mutation_score: float | None  # killed / (total - equivalent); None when nothing is left
    killed_by_category: dict[str, int]  # mutants that lost points in each category
    killed_by_status: dict[str, int]  # killed mutants whose run did not complete, by status
    survivors: list[Survivor]
    killed_mutants: list[Killed] = field(default_factory=list)  # in the JSON, not the text
    # Class mutants (classes.py) that lost points in other categories than their bug breaks.
    misattributed: list[Killed] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seconds: float | None = None
    command: str = ""

    @property
    def failed(self) -> bool:
        """Say whether the run found a gap: an unexplained survivor or a misattributed mutant."""
        return bool(self.unexplained or self.misattributed)

    @property
    def unexplained(self) -> list[Survivor]:
        """Return the survivors not recorded as equivalent: the hidden suite's gaps."""
        return [s for s in self.survivors if not s.equivalent]

    def to_json(self) -> dict:
        """Return the summary as plain JSON data, with the unexplained survivors named."""
        data = asdict(self)
        data["unexplained"] = [s.id for s in self.unexplained]
        return data


def summarize(
    mutants: list[Mutant],
    verdicts: dict[str, Verdict],
    equivalents: dict[str, Equivalent],
    categories: list[str],
    *,
    complete_catalogue: bool = True,
) -> Summary:
    """Return the summary of one run; `complete_catalogue` is False when only some were graded."""
    by_category = dict.fromkeys(categories, 0)
    by_status: Counter[str] = Counter()
    survivors: list[Survivor] = []
    killed_mutants: list[Killed] = []
    misattributed: list[Killed] = []
    warnings: list[str] = []
    for mutant in mutants:
        verdict = verdicts[mutant.id]
        recorded = equivalents.get(mutant.id)
        if verdict.killed:
            killed = Killed(mutant.id, mutant.line, mutant.diff, verdict.lost, verdict.status)
            killed_mutants.append(killed)
            if mutant.categories and set(verdict.lost) != set(mutant.categories):
                misattributed.append(killed)
            for name in verdict.lost:
                by_category[name] = by_category.get(name, 0) + 1
            if verdict.status != COMPLETED:
                by_status[verdict.status] += 1
            if recorded:
                warnings.append(
                    f"{mutant.id} is recorded as equivalent but was killed "
                    f"({', '.join(verdict.lost) or verdict.status}); remove its entry"
                )
            continue
        if recorded and recorded.diff != mutant.diff:
            warnings.append(
                f"{mutant.id}: the recorded diff {recorded.diff!r} differs from {mutant.diff!r}"
            )
        why = recorded.why if recorded else None
        survivors.append(Survivor(mutant.id, mutant.line, mutant.diff, bool(recorded), why))
    if complete_catalogue:
        # An entry for a mutant that no longer exists (its function changed) is stale: its id
        # names the mutated function's text, so a fresh judgement of the new mutant is needed.
        known = {mutant.id for mutant in mutants}
        warnings += [
            f"{stale} is recorded as equivalent but is no longer a mutant of the reference; "
            "remove its entry"
            for stale in sorted(set(equivalents) - known)
        ]
    equivalent = sum(1 for s in survivors if s.equivalent)
    killed = len(mutants) - len(survivors)
    judged = len(mutants) - equivalent
    return Summary(
        total=len(mutants),
        killed=killed,
        survived=len(survivors),
        equivalent=equivalent,
        mutation_score=killed / judged if judged else None,
        killed_by_category=by_category,
        killed_by_status=dict(sorted(by_status.items())),
        survivors=survivors,
        killed_mutants=killed_mutants,
        misattributed=misattributed,
        warnings=warnings,
    )


def format_text(summary: Summary) -> str:
    """Return the report as lines for a terminal."""
    score = "n/a" if summary.mutation_score is None else f"{summary.mutation_score:.1%}"
    lines = [
        f"Mutants: {summary.total}  killed: {summary.killed}  survived: {summary.survived}  "
        f"equivalent (recorded): {summary.equivalent}",
        f"Mutation score: {score} (killed / (total - equivalent) = "
        f"{summary.killed}/{summary.total - summary.equivalent})",
        "Killed mutants that lost points, by category:",
        *(f"  {name:<17} {count}" for name, count in summary.killed_by_category.items()),
    ]
    if summary.killed_by_status:
        lines.append("Killed mutants whose run did not complete, by status:")
        lines += [f"  {status:<17} {count}" for status, count in summary.killed_by_status.items()]
    unexplained = summary.unexplained
    lines.append(f"Survivors not recorded as equivalent: {len(unexplained)}")
    lines += [f"  {s.id}  L{s.line}: {s.diff}" for s in unexplained]
    expected = {m.id: m for m in summary.misattributed}
    lines.append(f"Class mutants that lost points outside their bug's categories: {len(expected)}")
    lines += [f"  {k.id}: lost in {', '.join(k.lost) or k.status}" for k in expected.values()]
    recorded = [s for s in summary.survivors if s.equivalent]
    if recorded:
        lines.append(f"Survivors recorded as equivalent: {len(recorded)}")
        lines += [f"  {s.id}  L{s.line}: {s.diff}  ({s.why})" for s in recorded]
    lines += [f"warning: {warning}" for warning in summary.warnings]
    if summary.seconds is not None:
        lines.append(f"Took {summary.seconds:.1f} s.")
    return "\n".join(lines)


def toml_stub(survivors: list[Survivor]) -> str:
    """Return [[equivalent]] entries to paste for survivors, with `why` left to be written."""
    blocks = []
    for s in survivors:
        blocks.append(
            f"[[equivalent]]\nid = {_toml_string(s.id)}\ndiff = {_toml_string(s.diff)}\n"
            'why = ""  # one line: why no behaviour the contract fixes can change\n'
        )
    return "\n".join(blocks)


def _toml_string(text: str) -> str:
    """Return `text` as a TOML basic string."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'
