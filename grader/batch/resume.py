"""Resume an interrupted grading run: each student's run result is kept with its fingerprint.

A stored result is reused only when its fingerprint matches: a hash of what is graded (the
submission's code units, kind, student id and load error, not file timestamps) and of the
grader's version (the source of everything that decides a verdict, the run settings that can
change one, and the Python version). Reports are always rebuilt from the result, so a change
to their wording never needs a regrade.

Results live in DIR/.resume/<student>.json, apart from the student folders handed back to
students, because they name the hidden tests.

A file per student rather than one sqlite3 database: each is replaced whole by a rename, so a
kill at any moment leaves every finished record readable, and a damaged one costs that student a
regrade, not the run its records; only the grading process writes them; it works on a network
file system, where SQLite's WAL does not; and it was no slower that mattered (0.2 ms a student
against 0.1 ms, next to about 0.4 s of grading).
"""

import hashlib
import json
import os
import shutil
import sys
from collections.abc import Iterator
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from grader.batch.run import RunSettings
from grader.model import (
    RUN_STATUSES,
    TEST_STATUSES,
    HiddenTest,
    JobFacts,
    RunResult,
    Submission,
    TestOutcome,
)
from grader.outputs import STORE_FOLDER, readable_json, write_atomically
from grader.paths import PROJECT_ROOT
from grader.sandbox.runtime import RUNTIME_FILES, RUNTIME_FOLDERS

RECORD_FORMAT = 1
# Everything whose change can change a verdict; reports are rebuilt anyway, so they are not here.
# The sandbox's copy is declared once, in grader.sandbox.containment (the step manifest, which
# decides which cells of a notebook are graded, among it).
VERDICT_SOURCES = (
    *RUNTIME_FOLDERS,
    *RUNTIME_FILES,
    "grader/hidden",
    "grader/sandbox",
    "grader/job",
    "grader/jobfiles.py",
    "grader/jobstart.py",
    "grader/batch/run.py",
    "grader/score.py",
    "grader/model.py",
    "grader/batch/resume.py",
    "grader/intake",
)
VERDICT_SUFFIXES = (".py", ".json", ".ini")
# Settings that decide how fast a run goes, never what it finds.
SPEED_SETTINGS = ("jobs",)
ISOLATION_VARIABLE = "GRADER_ISOLATION"  # as grader.sandbox.containment reads it


def grader_version(settings: RunSettings) -> str:
    """Return a hash that changes whenever the hidden tests, verdict logic or limits change."""
    digest = hashlib.sha256()
    for path in _verdict_files():
        name = path.relative_to(PROJECT_ROOT).as_posix().encode("utf-8")
        data = path.read_bytes()
        digest.update(b"%d:%s%d:" % (len(name), name, len(data)))
        digest.update(data)
    plain = asdict(settings)
    verdict_settings = {k: v for k, v in plain.items() if k not in SPEED_SETTINGS}
    context = {
        "settings": verdict_settings,
        "isolation": _isolation_context(),
        "python": sys.version,
        "format": RECORD_FORMAT,
    }
    digest.update(json.dumps(context, sort_keys=True, default=repr).encode("utf-8"))
    return digest.hexdigest()


def _isolation_context() -> dict[str, object]:
    """Return what decides how workers are shut in, which can change some verdicts."""
    # Cheap stand-ins for the job's own choice: probing bubblewrap here would cost a process.
    return {
        "bubblewrap": shutil.which("bwrap"),
        "forced": os.environ.get(ISOLATION_VARIABLE, ""),
        "root": hasattr(os, "geteuid") and os.geteuid() == 0,
    }


def _verdict_files() -> Iterator[Path]:
    """Yield each verdict source file once (the sandbox's folders lie inside grader/)."""
    found: dict[Path, None] = {}
    for name in VERDICT_SOURCES:
        path = PROJECT_ROOT / name
        files = sorted(path.rglob("*")) if path.is_dir() else [path]
        for file in files:
            if file.suffix in VERDICT_SUFFIXES:  # code, and the data it reads (the corpus)
                found.setdefault(file, None)
    yield from found


def fingerprint(submission: Submission, version: str) -> str:
    """Return the hash of what is graded for `submission` under grader `version`."""
    document = {
        "grader": version,
        "student": submission.student,
        "kind": submission.kind,
        "error": submission.error,
        "units": [asdict(unit) for unit in submission.units],
    }
    text = json.dumps(document, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def record_path(out_dir: str | Path, student: str) -> Path:
    """Return where the run result of `student` is kept under `out_dir`."""
    return Path(out_dir) / STORE_FOLDER / f"{student}.json"


def save(out_dir: str | Path, result: RunResult, key: str) -> None:
    """Keep `result` with its fingerprint `key`, written atomically."""
    document = {
        "fingerprint": key,
        "status": result.status,
        "reason": result.reason,
        "seconds": result.seconds,
        "outcomes": [_fields_of(outcome, _OUTCOME_FIELDS) for outcome in result.outcomes],
    }
    write_atomically(record_path(out_dir, result.submission.student), readable_json(document))


_OUTCOME_FIELDS = tuple(field.name for field in fields(TestOutcome))
_TEST_FIELDS = tuple(field.name for field in fields(HiddenTest))


def _fields_of(item: TestOutcome | HiddenTest, names: tuple[str, ...]) -> dict[str, Any]:
    """Return a dataclass's fields as a dict (asdict would deep-copy every string, slowly)."""
    return {name: getattr(item, name) for name in names}


def stored_result(out_dir: str | Path, submission: Submission, key: str | None) -> RunResult | None:
    """Return the kept RunResult of `submission` if its fingerprint is `key`, else None.

    A missing, unreadable or malformed record is None too: that student is simply graded again.
    """
    try:
        text = record_path(out_dir, submission.student).read_text(encoding="utf-8")
        document = json.loads(text)
        if document["fingerprint"] != key:
            return None
        outcomes = tuple(_outcome(item) for item in document["outcomes"])
        status, reason = document["status"], document["reason"]
        seconds = document.get("seconds")
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        return None
    if status not in RUN_STATUSES or not isinstance(reason, str):
        return None
    if type(seconds) not in (int, float):
        seconds = None
    return RunResult(submission, outcomes, status, reason, seconds)


def _outcome(item: dict[str, Any]) -> TestOutcome:
    """Rebuild one TestOutcome, raising ValueError unless `item` is exactly one."""
    names = _OUTCOME_FIELDS
    if sorted(item) != sorted(names) or not all(isinstance(item[n], str) for n in names):
        raise ValueError("not a test outcome")
    if item["status"] not in TEST_STATUSES:
        raise ValueError("unknown test status")
    return TestOutcome(**item)


# Under STORE_FOLDER: the hidden tests and isolation of a run. A dot first: no student id starts
# with one (grader.intake.ids), so it never meets a student's record.
FACTS_RECORD = ".facts.json"


def save_facts(out_dir: str | Path, version: str, facts: JobFacts) -> None:
    """Keep what the jobs of a run under grader `version` knew (grader.model.JobFacts)."""
    document = {
        "version": version,
        "isolation": facts.isolation,
        "hidden_tests": [_fields_of(test, _TEST_FIELDS) for test in facts.hidden_tests],
    }
    write_atomically(Path(out_dir) / STORE_FOLDER / FACTS_RECORD, readable_json(document))


def stored_facts(out_dir: str | Path, version: str) -> JobFacts | None:
    """Return the JobFacts a run under grader `version` kept in `out_dir`, or None."""
    try:
        text = (Path(out_dir) / STORE_FOLDER / FACTS_RECORD).read_text(encoding="utf-8")
        document = json.loads(text)
        if document["version"] != version or not isinstance(document["isolation"], str):
            return None
        tests = tuple(HiddenTest(**test) for test in document["hidden_tests"])
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        return None
    if not all(isinstance(getattr(test, n), str) for test in tests for n in _TEST_FIELDS):
        return None
    return JobFacts(tests, document["isolation"])
