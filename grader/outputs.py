"""The output folder (DIR): the names the grader writes there for the whole class, and the writer.

    write_atomically(Path(out_dir) / GRADES_FILE, text)    # readers see the old file or the new

Shared by every step, and importing none of them: intake refuses a student id that one of these
names would clash with (grader.intake.ids) before anything runs, and batch, reports and gradebook
write their files through the same atomic writer. Each step that writes a file takes its name
from here, so a step never imports a later one to learn what it writes.
"""

import contextlib
import os
import tempfile
from _json import encode_basestring, make_encoder
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, TextIO

GRADES_FILE = "grades.csv"  # grader.reports.grade_files
TIMINGS_FILE = "timings.json"  # grader.reports.grade_files
REPORT_FILE = "report.html"  # grader.reports.class_report
ITEM_ANALYSIS_FILE = "item-analysis.csv"  # grader.reports.class_report
SIMILARITY_FILE = "similarity.csv"  # grader.reports.similarity, with grade --similarity
LMS_SYSTEMS = ("canvas", "moodle")  # grader.gradebook.lms
STORE_FOLDER = ".resume"  # each student's kept result, for resuming (grader.batch.resume)
LOG_FOLDER = "logs"  # where a dead job's log is kept (grader.pipeline, grader.batch.run)


def lms_file_name(system: str) -> str:
    """Return the name of the LMS export file for `system`, such as grades-canvas.csv."""
    return f"grades-{system}.csv"


# Every file or folder the grader writes in DIR for the whole class: no student's folder may
# take one of these names, in any letter case (grader.intake.ids).
RESERVED_NAMES = (
    GRADES_FILE,
    TIMINGS_FILE,
    REPORT_FILE,
    ITEM_ANALYSIS_FILE,
    SIMILARITY_FILE,
    *(lms_file_name(system) for system in LMS_SYSTEMS),
    STORE_FOLDER,
    LOG_FOLDER,
)
# What a spreadsheet or LMS runs as a formula at the start of a CSV cell: the CSV writer makes
# such a cell text (grader.reports.spreadsheet), and no student id may start with one.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

# The most a report file or folder may allow: its owner and the instructor's group may read it,
# the world never (a shared course folder must not hand grades to every user); the umask can
# only take more away.
FILE_MODE = 0o640
FOLDER_MODE = 0o750


def write_atomically(path: str | Path, text: str) -> None:
    """Write `text` to `path` so readers see the old file or the new one, never half of one."""
    with atomic_writer(path) as stream:
        stream.write(text)


@contextlib.contextmanager
def atomic_writer(path: str | Path) -> Iterator[TextIO]:
    """Yield a text stream whose content replaces `path` at once when the block ends.

    For a file too large to build as one string: readers see the old file or the new one,
    never half of one, and a block that raises leaves the old file as it was.
    """
    path = Path(path)
    make_folder(path.parent)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp makes the file private (0600); a report may be read by the instructor's group
        # (FILE_MODE) unless the umask takes that away too.
        os.fchmod(handle, FILE_MODE & ~_umask())
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            yield stream
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def make_folder(folder: str | Path) -> None:
    """Create `folder` and any missing parent as FOLDER_MODE (less what the umask takes away).

    A folder that already exists keeps its mode: the instructor chose it.
    """
    folder = Path(folder)
    missing: list[Path] = []
    while not folder.is_dir():
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    for created in reversed(missing):
        # mkdir applies the umask to FOLDER_MODE itself.
        with contextlib.suppress(FileExistsError):
            created.mkdir(mode=FOLDER_MODE)


def _umask() -> int:
    """Return the process's umask (reading it means setting it, so it is put straight back)."""
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def readable_json(document: Mapping[str, Any]) -> str:
    """Return JSON text for a dict, one line per field and per item of a list field.

    As readable as indented JSON where it matters (one test per line), but every piece goes
    through json's C encoder: indenting goes through its pure-Python one, which cost a class of
    hundreds of students seconds of the grader's time.
    """
    fields = []
    for key in sorted(document):
        value = document[key]
        if isinstance(value, list) and value:
            items = ",\n    ".join(_compact(item) for item in value)
            fields.append(f"  {_compact(key)}: [\n    {items}\n  ]")
        else:
            fields.append(f"  {_compact(key)}: {_compact(value)}")
    return "{\n" + ",\n".join(fields) + "\n}\n"


def _refuse(value: object) -> object:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# One encoder for every piece, json's C one itself: JSONEncoder.encode builds a new one, with a
# table of the ids it has seen, at each of the 520 calls a student's file makes. A report is a
# tree built here, so nothing needs that table.
_COMPACT = make_encoder(None, _refuse, encode_basestring, None, ": ", ", ", True, False, True)


def _compact(value: object) -> str:
    return "".join(_COMPACT(value, 0))
