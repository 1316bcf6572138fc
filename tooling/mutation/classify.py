"""Read the grader's grades.csv and the recorded equivalent mutants; tell killed from survived."""

import csv
import io
import tomllib
from dataclasses import dataclass
from pathlib import Path

from grader.model import POINTS_PER_CATEGORY

# The columns of grades.csv that are not categories; every other column is one category's points.
FIXED_COLUMNS = ("student", "score", "max_score", "status")
COMPLETED = "completed"


class MutationError(Exception):
    """The analysis cannot give a trustworthy answer: a bad input file or a failed grading run."""


@dataclass(frozen=True)
class GradeRow:
    """One student's row of grades.csv."""

    student: str
    score: float
    max_score: float
    categories: dict[str, float]
    status: str


@dataclass(frozen=True)
class Verdict:
    """What the hidden suite did to one mutant."""

    killed: bool
    lost: tuple[str, ...]  # the categories in which it lost points, in grades.csv's order
    status: str


@dataclass(frozen=True)
class Equivalent:
    """A surviving mutant recorded as behaving like the reference wherever the contract reaches."""

    id: str
    diff: str
    why: str


def parse_grades(text: str) -> dict[str, GradeRow]:
    """Return the rows of a grades.csv text by student id; MutationError if it is malformed."""
    reader = csv.DictReader(io.StringIO(text))
    header = reader.fieldnames or []
    missing = [column for column in FIXED_COLUMNS if column not in header]
    if missing:
        raise MutationError(f"grades.csv has no column {', '.join(missing)}")
    categories = [column for column in header if column not in FIXED_COLUMNS]
    rows = {}
    for record in reader:
        try:
            rows[record["student"]] = GradeRow(
                student=record["student"],
                score=float(record["score"]),
                max_score=float(record["max_score"]),
                categories={name: float(record[name]) for name in categories},
                status=record["status"],
            )
        except (TypeError, ValueError) as error:
            raise MutationError(f"grades.csv row {record!r} is not numbers: {error}") from None
    return rows


def judge(row: GradeRow, full_marks: float = POINTS_PER_CATEGORY) -> Verdict:
    """Return whether the row's mutant is killed: any category short of full marks, or not run."""
    lost = tuple(name for name, points in row.categories.items() if points < full_marks)
    # A run that did not complete (timeout, crash, error...) is killed even if its points somehow
    # read full: the grader did not see it behave like the reference.
    killed = bool(lost) or row.status != COMPLETED or row.score < row.max_score
    return Verdict(killed=killed, lost=lost, status=row.status)


def judge_all(rows: dict[str, GradeRow], mutant_ids: list[str]) -> dict[str, Verdict]:
    """Return a verdict for every mutant id; MutationError if grades.csv lacks one of them."""
    absent = [mutant_id for mutant_id in mutant_ids if mutant_id not in rows]
    if absent:
        raise MutationError(
            f"grades.csv has no row for {len(absent)} mutant(s), such as {absent[0]!r}"
        )
    return {mutant_id: judge(rows[mutant_id]) for mutant_id in mutant_ids}


def load_equivalents(path: Path) -> dict[str, Equivalent]:
    """Return the recorded equivalent mutants by id; an absent file records none."""
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise MutationError(f"{path}: not valid TOML ({error})") from None
    entries = data.get("equivalent", [])
    if not isinstance(entries, list):
        raise MutationError(f"{path}: `equivalent` must be an array of tables ([[equivalent]])")
    recorded: dict[str, Equivalent] = {}
    for number, entry in enumerate(entries, start=1):
        fields = {
            key: entry.get(key) if isinstance(entry, dict) else None
            for key in Equivalent.__dataclass_fields__
        }
        bad = [key for key, value in fields.items() if not isinstance(value, str) or not value]
        if bad:
            raise MutationError(f"{path}: entry {number} needs a non-empty {', '.join(bad)}")
        if fields["id"] in recorded:
            raise MutationError(f"{path}: mutant {fields['id']!r} is recorded twice")
        recorded[fields["id"]] = Equivalent(**fields)
    return recorded
