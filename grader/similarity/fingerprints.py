"""One student's code as copydetect's fingerprints, less the course's own code.

copydetect (Python, on PyPI) tokenizes code with pygments and keeps its shape, not its words:
every variable becomes V, every function name F, every string S, comments and layout go
(`copydetect.utils.filter_code`). Its k-grams of that text are winnowed (`winnow`, Schleimer,
Wilkerson and Aiken's robust winnowing), so a renamed, reordered or commented copy keeps most of
its fingerprints. Only the hashing is ours: copydetect hashes k-grams with Python's `hash`,
which changes with every process (PYTHONHASHSEED), so its winnowing would pick other k-grams on
every run; a polynomial hash in numpy gives the same fingerprints, scores and files every run.

The boilerplate is every code cell of the released lessons (the starter code and the demos)
and course/supplied.py (a student may keep a copy of the supplied names): any k-gram of theirs
is dropped from every student's fingerprints, as copydetect's boilerplate is.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from copydetect.utils import filter_code, get_token_coverage, winnow

from course.carry.notebooks import read_notebook_cells, source_of
from course.manifest import Course
from grader.paths import LESSONS, PROJECT_ROOT

# copydetect's defaults: a match must run for 25 characters of the filtered text (a line or two
# of code), and one is found wherever it runs for 30 (window = 30 - 25 + 1).
NOISE = 25
WINDOW = 6
LANGUAGE = "python"
SUPPLIED = PROJECT_ROOT / "course" / "supplied.py"

_BASE = np.uint64(1_000_003)
_MIX = np.uint64(0xBF58476D1CE4E5B9)
Hashes = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Fingerprint:
    """copydetect's CodeFingerprint, made by `fingerprint` (copydetect's `compare_files` reads it).

    `hashes` are the fingerprints kept, `hash_idx` where each starts in `filtered_code`,
    `offsets` how filtering moved the text (to find the matches in `raw_code`), and
    `token_coverage` how much of the filtered text the kept fingerprints cover.
    """

    filename: str
    raw_code: str
    filtered_code: str
    offsets: npt.NDArray[np.int64]
    hashes: set[int]
    hash_idx: dict[int, list[int]] = field(repr=False)
    k: int = NOISE
    token_coverage: int = 0


def kgram_hashes(text: str, k: int = NOISE) -> Hashes:
    """Return a hash of every k characters of `text`, the same in every process (52 bits)."""
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    count = len(codes) - k + 1
    if count <= 0:
        return np.zeros(0, dtype=np.int64)
    hashes = np.zeros(count, dtype=np.uint64)
    for offset in range(k):
        hashes = hashes * _BASE + codes[offset : offset + count]  # wraps modulo 2**64
    hashes ^= hashes >> np.uint64(31)
    hashes *= _MIX
    hashes ^= hashes >> np.uint64(29)
    # 52 bits: copydetect's winnowing compares hashes as floats, which hold 52 bits exactly.
    return (hashes >> np.uint64(12)).astype(np.int64)


def filtered(code: str) -> tuple[str, npt.NDArray[np.int64]]:
    """Return copydetect's filtered text of Python `code` and its offsets into the code."""
    text, offsets = filter_code(code, "student.py", LANGUAGE)
    return text, np.asarray(offsets, dtype=np.int64)


def boilerplate_hashes(course: Course) -> Hashes:
    """Return every k-gram hash of the released lessons' code cells and the supplied names."""
    sources = [SUPPLIED.read_text(encoding="utf-8")]
    for step in course.steps:
        cells = read_notebook_cells(LESSONS / course.assignment / step.notebook)
        sources += [source_of(cell) for cell in cells if cell.get("cell_type") == "code"]
    return np.unique(np.concatenate([kgram_hashes(filtered(s)[0]) for s in sources]))


def fingerprint(name: str, code: str, boilerplate: Hashes) -> Fingerprint:
    """Return the winnowed fingerprints of `code`, less any hash in `boilerplate` (sorted)."""
    text, offsets = filtered(code)
    every = kgram_hashes(text)
    hashes, places = winnow(every, WINDOW, remove_duplicates=False)
    kept = ~_course_made(every, boilerplate)[places]
    where: dict[int, list[int]] = {}
    for value, place in zip(hashes[kept].tolist(), places[kept].tolist(), strict=True):
        where.setdefault(value, []).append(place)
    coverage = int(get_token_coverage(where, NOISE, len(text)))
    return Fingerprint(name, code, text, offsets, set(where), where, NOISE, coverage)


def _course_made(hashes: Hashes, boilerplate: Hashes) -> npt.NDArray[np.bool_]:
    """Return, for each k-gram, whether every character of it lies in the course's own k-grams.

    A k-gram of the boilerplate is one, and so is one that straddles two pieces of boilerplate
    (the end of one starter cell and the start of the next): it is the course's text too.
    """
    if len(hashes) == 0:
        return np.zeros(0, dtype=np.bool_)
    length = len(hashes) + NOISE - 1
    starts = np.flatnonzero(np.isin(hashes, boilerplate))
    steps = np.zeros(length + 1, dtype=np.int64)
    np.add.at(steps, starts, 1)
    np.add.at(steps, starts + NOISE, -1)
    covered = np.cumsum(steps[:length]) > 0  # each character inside a boilerplate k-gram
    within = np.concatenate(([0], np.cumsum(covered)))
    whole: npt.NDArray[np.bool_] = (within[NOISE:] - within[: len(hashes)]) == NOISE
    return whole


def joined(sources: Iterable[str]) -> str:
    """Return a student's cells as one text, each ending with a blank line."""
    return "".join(source.rstrip("\n") + "\n\n" for source in sources)
