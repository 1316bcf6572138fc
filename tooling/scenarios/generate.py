"""Draw each family's scenarios with Hypothesis, derandomized, and judge them by the model.

The draw is deterministic (a fixed seed from the drawing function, no example database), and
its result is committed as data: grading never runs Hypothesis, and every student, run and
machine gets the same scenarios. Hypothesis also mixes in string and number literals it finds
in the project's loaded modules ("local constants"); that would tie the corpus to every
unrelated edit and to what happened to be imported, so the draw runs without them. A family
may add scenarios written out one by one (pinned.py) to its draw. Within a family the
scenarios are ordered smallest first, so the first one a submission fails is the smallest
failing scenario of its kind.
"""

import contextlib
import json
from collections.abc import Iterator
from dataclasses import asdict

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.internal.conjecture import providers
from hypothesis.internal.constants_ast import Constants

from grader.hidden.judge.contract_model import expect
from grader.hidden.judge.corpus import expanded
from grader.sandbox.handlers import Scenario, check_spec
from grader.sandbox.inside.picture import json_text
from tooling.scenarios.families import FAMILIES, Family, ProgramFamily
from tooling.scenarios.programs import Program, stamped

_DRAWING = dict(
    derandomize=True,
    database=None,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
    deadline=None,
)


def draw(strategy: st.SearchStrategy[Scenario], count: int) -> list[Scenario]:
    """Return up to `count` distinct scenarios drawn from `strategy`, smallest first."""
    drawn: dict[str, Scenario] = {}

    @settings(max_examples=count, **_DRAWING)  # type: ignore[arg-type]
    @given(strategy)
    def keep(example: Scenario) -> None:
        drawn.setdefault(json_text(example), example)

    with _without_local_constants():
        keep()
    return _smallest_first(drawn)


def draw_programs(strategy: st.SearchStrategy[Program], count: int) -> dict[str, Program]:
    """Return up to `count` distinct programs drawn from `strategy`, by their JSON text.

    Apart from `draw`, whose source seeds its derandomized draws: sharing it would redraw
    every other family.
    """
    drawn: dict[str, Program] = {}

    @settings(max_examples=count, **_DRAWING)  # type: ignore[arg-type]
    @given(strategy)
    def keep_program(example: Program) -> None:
        drawn.setdefault(json_text(example), example)

    with _without_local_constants():
        keep_program()
    return drawn


def scenarios(family: Family | ProgramFamily) -> list[Scenario]:
    """Return a family's drawn scenarios and its pinned ones, each once, smallest first.

    A family of programs gives every call of each program, program after program, the
    smallest program first: the first call a submission fails is in its smallest failing one.
    """
    if isinstance(family, ProgramFamily):
        programs = draw_programs(family.strategy, family.count)
        for calls in family.pinned:
            programs.setdefault(json_text(calls), calls)
        ordered = sorted(programs, key=lambda text: (len(text), text))
        return [call for text in ordered for call in stamped(programs[text])]
    found = {json_text(scenario): scenario for scenario in draw(family.strategy, family.count)}
    for scenario in family.pinned:
        found.setdefault(json_text(scenario), scenario)
    return _smallest_first(found)


def _smallest_first(by_text: dict[str, Scenario]) -> list[Scenario]:
    return [by_text[text] for text in sorted(by_text, key=lambda text: (len(text), text))]


@contextlib.contextmanager
def _without_local_constants() -> Iterator[None]:
    """Draw with Hypothesis's own constants only, none read from this project's modules.

    A private hook of the pinned Hypothesis (requirements/lock.txt); should an upgrade move it, the
    generator fails here and tests/tooling/test_scenarios.py says so.
    """
    found = providers._get_local_constants
    providers._get_local_constants = Constants  # makes an empty set of constants
    try:
        yield
    finally:
        providers._get_local_constants = found


def corpus_text() -> str:
    """Return the corpus as committed: by family, a scenario and its expectation per line."""
    lines = ["{"]
    for place, family in enumerate(FAMILIES):
        entries = []
        for scenario in scenarios(family):
            for spec in scenario["tools"].values():
                check_spec(spec)
            expected = asdict(expect(expanded(scenario)))
            entries.append(json_text({"scenario": scenario, "expected": expected}))
        comma = "," if place < len(FAMILIES) - 1 else ""
        lines.append(f"{json.dumps(family.name)}: [\n" + ",\n".join(entries) + f"\n]{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"
