"""Grade a large class on many machines: one deterministic slice per machine, then one merge.

    grade CLASS --out part-1 --shard 1/3      # on three machines (or array tasks) at once
    grade CLASS --out part-2 --shard 2/3
    grade CLASS --out part-3 --shard 3/3
    grade CLASS --out final --merge part-1 part-2 part-3

A shard is the students whose place in the class, sorted by student id, is K modulo N: the same
class always splits the same way, whatever machine or order the shards run in, and sizes differ
by at most one. The class is read whole in every shard, so student ids that would mix files
are refused the same way everywhere. Merging copies each shard's student folders and stored
results into the output folder; the run that follows then reuses every stored result (as a
resumed run does) and writes the class-wide files exactly as one run over the whole class
would. A student no shard finished is simply graded by that run.
"""

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from grader.model import UsageError
from grader.outputs import STORE_FOLDER


@dataclass(frozen=True)
class Shard:
    """Shard `number` of `count` (numbered from 1, as array jobs number their tasks)."""

    number: int
    count: int

    @classmethod
    def parse(cls, text: str) -> "Shard":
        """Read "K/N"; raise UsageError with one line if it is not a shard of N."""
        number, slash, count = text.partition("/")
        if not (slash and number.isdigit() and count.isdigit()):
            raise UsageError(f"--shard {text!r}: write it as K/N, for example 2/8")
        shard = cls(int(number), int(count))
        if not 1 <= shard.number <= shard.count:
            raise UsageError(f"--shard {text}: K must be between 1 and N")
        return shard

    def students(self, every: list[str]) -> set[str]:
        """Return the students of the class `every` that fall in this shard."""
        return {
            student
            for place, student in enumerate(sorted(every))
            if place % self.count == self.number - 1
        }


def gather(shard_folders: list[Path], out_dir: Path) -> None:
    """Copy every shard's student folders and stored results into `out_dir`.

    Raise UsageError with one line if a folder is not a grader's output, or if two shards hold
    different results for one student (they were not slices of one class).
    """
    out_dir = Path(out_dir)
    (out_dir / STORE_FOLDER).mkdir(parents=True, exist_ok=True)
    for folder in map(Path, shard_folders):
        records = folder / STORE_FOLDER
        if not records.is_dir():
            raise UsageError(f"--merge {folder}: not a folder the grader wrote (no {STORE_FOLDER})")
        for record in sorted(records.glob("*.json")):
            student = record.stem
            _copy_once(record, out_dir / STORE_FOLDER / record.name, student)
            if (folder / student).is_dir():
                _copy_folder(folder / student, out_dir / student, student)


def _copy_once(source: Path, target: Path, student: str) -> None:
    if target.exists():
        if target.read_bytes() != source.read_bytes():
            raise UsageError(f"--merge: two shards graded {student!r} differently")
        return
    shutil.copyfile(source, target)


def _copy_folder(source: Path, target: Path, student: str) -> None:
    target.mkdir(exist_ok=True)
    for item in source.iterdir():
        if item.is_file() and not item.is_symlink():  # the grader writes plain files only
            _copy_once(item, target / item.name, student)
            os.chmod(target / item.name, item.stat().st_mode & 0o777)
