"""The fixtures' expected grades: read from their folders, their summaries and exceptions.toml."""

import ast
import tokenize
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from grader.intake.discover import Found, discover
from grader.model import CATEGORIES, RUN_STATUSES, SETTLED, TEST_STATUSES, RunStatus
from grader.paths import LESSONS, SUBMISSIONS

EXCEPTIONS_FILE = "exceptions.toml"
FULL_MARKS = "correct"  # the folder of the submissions that earn every point
# The statuses a fixture's folder can name: every way a run or a test ends, but ending well.
LABELS = frozenset({*TEST_STATUSES, *RUN_STATUSES} - {*SETTLED, RunStatus.COMPLETED})
# The kinds of fixture whose name already says what they score, and the only score they may have.
KIND_SCORES = {"correct": "full", "buggy": "fails"}
EXCEPTION_KEYS = {"must_fail", "keeps", "skip"}
FIXTURE_SUFFIXES = (".py", ".ipynb")


class FixtureLayoutError(ValueError):
    """A fixture whose path says nothing the self-check understands, or a wrong exception."""


@dataclass(frozen=True)
class Expectation:
    """What one fixture submission must score, and the statuses its run must show.

    `score` is "full" (every point, run completed), "zero" (no point; the run completed unless
    labels say how it ended), "fails" (points lost in exactly the categories of `must_fail`,
    run completed) or "label" (any score, as long as every status of `labels` appears).
    Whatever the kind, every category of `must_fail` loses points and every one of `keeps`
    gets full marks. `summary` says what the student did (the first line of its docstring).
    """

    student: str
    path: Path
    score: str
    must_fail: tuple[str, ...] = ()
    keeps: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    summary: str = ""
    found: Found | None = None  # as discovery found it, where the path alone cannot say

    def describe(self) -> str:
        """Return the expectation in a few words, for the self-check's output."""
        wording = {
            "full": "full marks",
            "zero": "a score of 0",
            "fails": f"points lost in {', '.join(self.must_fail)} only",
            "label": "",
        }
        parts = [wording[self.score], f"label {', '.join(self.labels)}" if self.labels else ""]
        return " with ".join(part for part in parts if part)


def load_expectations(root: Path = SUBMISSIONS) -> list[Expectation]:
    """Return an expectation for every fixture under `root`, then one for the untouched lessons.

    Raise FixtureLayoutError, naming the file, for a fixture whose path says nothing the
    self-check understands, and for an entry of exceptions.toml that names no fixture or
    says something a fixture cannot expect.
    """
    exceptions = _read_exceptions(root / EXCEPTIONS_FILE)
    fixtures = {path.relative_to(root).as_posix(): path for path in _fixture_files(root)}
    missing = sorted(set(exceptions) - set(fixtures))
    if missing:
        raise FixtureLayoutError(f"{EXCEPTIONS_FILE} names {missing[0]}, which is not a fixture")
    expectations = [
        _expectation(name, path, exceptions.get(name, {}))
        for name, path in sorted(fixtures.items())
        if "skip" not in exceptions.get(name, {})
    ]
    lessons = "The lessons as students receive them, with no exercise done."
    return [
        *expectations,
        Expectation("untouched-lessons", _lessons_folder(), "zero", summary=lessons),
    ]


def _fixture_files(root: Path) -> list[Path]:
    """Return every file under `root` but the exceptions; raise for one that is no submission."""
    files = []
    for path in sorted(root.rglob("*")):
        if path.is_dir() or "__pycache__" in path.parts or path == root / EXCEPTIONS_FILE:
            continue
        if path.suffix not in FIXTURE_SUFFIXES:
            raise FixtureLayoutError(f"{path}: a fixture is a .py file or a notebook")
        files.append(path)
    return files


def _read_exceptions(path: Path) -> dict[str, dict[str, Any]]:
    """Return exceptions.toml's tables by fixture name ({} without the file), checked."""
    if not path.exists():
        return {}
    try:
        tables: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise FixtureLayoutError(f"{EXCEPTIONS_FILE}: {error}") from None
    for name, table in tables.items():
        if not isinstance(table, dict):
            raise FixtureLayoutError(f"{EXCEPTIONS_FILE}, {name}: a fixture's entry is a table")
        unknown = sorted(set(table) - EXCEPTION_KEYS) or sorted(
            category
            for category in [*table.get("must_fail", []), *table.get("keeps", [])]
            if category not in CATEGORIES
        )
        if unknown:
            raise FixtureLayoutError(f"{EXCEPTIONS_FILE}, {name}: unknown {', '.join(unknown)}")
    return tables


def _expectation(name: str, path: Path, exception: dict[str, Any]) -> Expectation:
    """Return what the fixture `name` (its path under the fixtures) must score."""
    score, folder_fails, labels = _folder_says(name)
    must_fail = tuple(exception.get("must_fail", folder_fails))
    if score == "fails" and not set(folder_fails) <= set(must_fail):
        raise FixtureLayoutError(
            f"{EXCEPTIONS_FILE}, {name}: must_fail leaves out {', '.join(folder_fails)}"
        )
    keeps = exception.get("keeps", [c for c in CATEGORIES if c not in must_fail])
    return Expectation(
        # Nested paths are unique, so they make unique student ids.
        student=PurePosixPath(name).with_suffix("").as_posix().replace("/", "-"),
        path=path,
        score=score,
        must_fail=tuple(sorted(must_fail)),
        keeps=tuple(keeps),
        labels=labels,
        summary=summary_of(path),
    )


def _folder_says(name: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """Return the score, the categories to lose and the labels the folder of `name` names."""
    parts = PurePosixPath(name).parts
    folder = parts[-2] if len(parts) > 1 else ""
    said: tuple[str, tuple[str, ...], tuple[str, ...]]
    if folder == FULL_MARKS:
        said = ("full", (), ())
    elif folder in CATEGORIES:
        said = ("fails", (folder,), ())
    elif folder in LABELS:
        said = ("label", CATEGORIES, (folder,))
    else:
        raise FixtureLayoutError(
            f"{name}: its folder names no expectation; put it in a folder named {FULL_MARKS}, "
            f"a category or a status, or give it an entry in {EXCEPTIONS_FILE}"
        )
    if KIND_SCORES.get(parts[0], said[0]) != said[0]:
        raise FixtureLayoutError(f"{name}: a {parts[0]} fixture cannot expect {said[0]!r}")
    return said


def summary_of(path: Path) -> str:
    """Return the first line of a Python fixture's docstring, or "" when it has none.

    The file is tokenized, not parsed, so a fixture that is a syntax error on purpose still
    says what it is.
    """
    if path.suffix != ".py":
        return ""
    with path.open(encoding="utf-8") as source:
        for token in tokenize.generate_tokens(source.readline):
            if token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE):
                is_text = token.type == tokenize.STRING
                text = str(ast.literal_eval(token.string)).strip() if is_text else ""
                return text.splitlines()[0] if text else ""
    return ""


def find_fixture(kind: str, name: str, root: Path = SUBMISSIONS) -> Path:
    """Return the fixture file `name`.py of `kind` (adversarial, twins...), whatever its folder."""
    found = sorted((root / kind).rglob(f"{name}.py"))
    if len(found) != 1:
        raise FixtureLayoutError(f"{len(found)} fixtures named {name}.py under {kind}/, not one")
    return found[0]


def _lessons_folder() -> Path:
    """Return the folder holding the generated lesson notebooks, however lessons/ nests it."""
    return Path(discover([LESSONS])[0].path)
