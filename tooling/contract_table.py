"""Write docs/CONTRACT.md's table from each category to what teaches, checks and grades it.

`python -m tooling.contract_table` rewrites the table between its two markers from the one
home of each fact: the categories with their rules and codes (course/contract.py), the steps
that teach them with their exercise cells (course/steps.toml), each step's visible check
(course/checks/<module>.py) and each category's hidden tests (grader/hidden/test_<name>.py).
`--check` changes nothing and exits 1 when the table is out of date (`make check` runs it).
"""

import argparse
import sys
from pathlib import Path

from course.contract import CATEGORY_TABLE, EXCEPTION_CODES, Category, parts_of
from course.manifest import Course, Step, load_course
from grader.model import POINTS_PER_CATEGORY
from grader.paths import PROJECT_ROOT
from grader.score import CENTS, shares

CONTRACT = PROJECT_ROOT / "docs" / "CONTRACT.md"
START = (
    "<!-- contract-table: written by `python -m tooling.contract_table` from course/contract.py "
    "and course/steps.toml; edit those, not this table -->"
)
END = "<!-- end of contract-table -->"
HEADER = (
    "| category | rules and codes | points of each | lesson step (notebook, exercise cells) "
    "| visible check | hidden tests |\n| --- | --- | --- | --- | --- | --- |"
)


def rules_and_codes(category: Category) -> str:
    """Say which rules and failure codes a category judges, the exception codes as one group."""
    parts = [str(rule) for rule in category.rules]
    codes = list(category.codes)
    if set(EXCEPTION_CODES) <= set(codes):
        codes = [code for code in codes if code not in EXCEPTION_CODES]
        parts += [f"`{code}`" for code in codes] + ["the four exception codes"]
    else:
        parts += [f"`{code}`" for code in codes]
    return ", ".join(parts)


def points_of_parts(category: Category) -> str:
    """Say the points each rule or code of a category is worth, in the order they are named."""
    cents = shares(POINTS_PER_CATEGORY * CENTS, len(parts_of(category)))
    return ", ".join(f"{share / CENTS:.2f}" for share in cents)


def taught_by(category: Category, course: Course) -> list[Step]:
    """Return the steps whose manifest entry names `category`."""
    return [step for step in course.all_steps if category.name in step.categories]


def row(category: Category, course: Course) -> str:
    """Return the table's row for one category; raise FileNotFoundError for a missing file."""
    steps = taught_by(category, course)
    lessons = "; ".join(
        f"{step.number} `{step.notebook}`, " + " and ".join(f"`{c}`" for c in step.exercises)
        for step in steps
    )
    checks = []
    for step in steps:
        path = Path("course") / "checks" / f"{step.module}.py"
        _must_exist(path)
        checks.append(f"`{path.as_posix()}`")
    hidden = Path("grader") / "hidden" / f"test_{category.name}.py"
    _must_exist(hidden)
    cells = [f"`{category.name}`", rules_and_codes(category), points_of_parts(category)]
    cells += [lessons, ", ".join(checks)]
    return "| " + " | ".join([*cells, f"`{hidden.as_posix()}`"]) + " |"


def _must_exist(path: Path) -> None:
    if not (PROJECT_ROOT / path).is_file():
        raise FileNotFoundError(f"{path} does not exist: the table would point nowhere")


def table(course: Course) -> str:
    """Return the whole table with its markers."""
    rows = "\n".join(row(category, course) for category in CATEGORY_TABLE)
    return f"{START}\n{HEADER}\n{rows}\n{END}"


def with_table(text: str, course: Course) -> str:
    """Return CONTRACT.md's text with its table rewritten; raise ValueError without markers."""
    before, start, rest = text.partition(START)
    _old, end, after = rest.partition(END)
    if not (start and end):
        raise ValueError(f"{CONTRACT.name} lacks the contract-table markers")
    return before + table(course) + after


def main(argv: list[str] | None = None) -> int:
    """Rewrite (or, with --check, compare) the table; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m tooling.contract_table", description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 if the table is stale")
    args = parser.parse_args(argv)
    text = CONTRACT.read_text(encoding="utf-8")
    try:
        wanted = with_table(text, load_course())
    except (ValueError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.check:
        if wanted != text:
            print(
                "error: docs/CONTRACT.md's table is out of date: run "
                "`python -m tooling.contract_table`",
                file=sys.stderr,
            )
            return 1
        return 0
    CONTRACT.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
