"""nbgrader's collect, copying only what a student handed in, without a race, with a receipt.

The exchange's inbound folder is writable by every student, and nbgrader's collect copies each
submission from it into `submitted/` as the instructor: it follows links, checks names and then
opens them again (a student swapping a notebook for a link to the solutions in between has
collect copy the solutions), writes a sparse file out in full before its size check, takes a
folder in another student's name with a warning, and keeps the `timestamp.txt` the student
wrote. This collect (the course's nbgrader_config.py makes it `c.ExchangeFactory.collect`):

- copies through grader.intake.copying: each entry looked up once relative to its open folder,
  regular files and folders only (no link, pipe, device or hard link), sizes counted before
  anything is written, a sparse file at its apparent size, within nbgrader's max_file_size and
  max_dir_size;
- refuses an inbound folder whose owner is not the student it names, and prefers each
  student's own newest folder (`allow_other_owners = True` where the exchange has no per-user
  owners, as when every server runs as one user);
- writes the receipt `timestamp.txt` in submitted/ itself: the later of the time in the folder's
  name and the newest change time (ctime) of what it copied, which no student can set back.
  Lateness is counted from it, by autograde and by `grade` alike.

This module imports nbgrader; the grader itself never imports it.
"""

import os
import pwd
import tempfile
from datetime import UTC, datetime
from typing import Any

from nbgrader.exchange.default.collect import ExchangeCollect
from traitlets import Bool

from grader.gradebook.times import TIMESTAMP_FILE, receipt_text
from grader.intake.copying import CopyLimits, NotCopied, copy_folder

KILOBYTE = 1000  # nbgrader's max_file_size and max_dir_size are in these


class CollectWithoutLinks(ExchangeCollect):  # type: ignore[misc]
    """nbgrader's collect, whose copy takes regular files and folders only, without a race."""

    allow_other_owners = Bool(
        False,
        help="Collect an inbound folder whatever user owns it (only where the exchange has no "
        "per-user owners: otherwise a student can hand in under another's name).",
    ).tag(config=True)

    _warn_owner = True  # nbgrader's check_owner, which do_copy honours from the folder it opened

    def copy_files(self) -> None:
        """Collect as nbgrader does, its owner warning given by do_copy, by no second look-up.

        nbgrader looks each inbound folder up again for that warning (os.stat): a folder its
        student renamed away in that moment would end the whole collect with a traceback, every
        student after them uncollected.
        """
        traits = self.trait_values()
        self._warn_owner = bool(traits["check_owner"])
        self.set_trait("check_owner", False)
        try:
            super().copy_files()
        finally:
            self.set_trait("check_owner", self._warn_owner)

    def _sort_by_timestamp(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Put each student's own newest folder first: nbgrader collects the first."""
        return sorted(records, key=lambda r: (self._owned(r), r["timestamp"]), reverse=True)

    def do_copy(self, src: str, dest: str, log: Any = None) -> None:
        """Copy `src` to `dest` as nbgrader does, from a private copy taken without a race."""
        name = os.path.basename(src)
        record = next((r for r in self.src_records if r["filename"] == name), None)
        limits = CopyLimits(
            file_bytes=KILOBYTE * self.coursedir.max_file_size,
            total_bytes=KILOBYTE * self.coursedir.max_dir_size,
        )
        with tempfile.TemporaryDirectory(prefix="nbgrader-collect-") as staging:
            plain = os.path.join(staging, "copy")
            try:
                owner = None if self.allow_other_owners else _user_id(record)
                copied = copy_folder(os.path.dirname(src), name, plain, limits, owner)
            except (NotCopied, OSError) as error:
                self.log.error("Not collected: %s (%s)", src, error)
                return
            if self._warn_owner and record is not None and copied.owner != _uid_or_none(record):
                self.log.warning(
                    "%s is owned by user id %s, not by the student it names", src, copied.owner
                )
            for line in copied.left_out:
                self.log.warning("Not collected: %s", line)
            super().do_copy(plain, dest, log)
        received = datetime.fromtimestamp(copied.changed, UTC)
        if record is not None:
            received = max(received, _aware(record["timestamp"]))
        with open(os.path.join(dest, TIMESTAMP_FILE), "w", encoding="utf-8") as stream:
            stream.write(receipt_text(received))

    def _owned(self, record: dict[str, Any]) -> bool:
        """Say whether the student a record names owns its folder (by name: a preference only)."""
        if self.allow_other_owners:
            return True
        try:
            status = os.lstat(os.path.join(self.inbound_path, record["filename"]))
            return status.st_uid == _user_id(record)
        except (OSError, NotCopied):
            return False


def _user_id(record: dict[str, Any] | None) -> int:
    """Return the user id of the student `record` names; NotCopied if there is no such user."""
    student = "" if record is None else record["username"]
    try:
        return pwd.getpwnam(student).pw_uid
    except KeyError:
        raise NotCopied(
            f"no user is named {student!r} on this machine to own it (set "
            "CollectWithoutLinks.allow_other_owners = True where the exchange has no per-user "
            "owners)"
        ) from None


def _uid_or_none(record: dict[str, Any]) -> int | None:
    """Return the user id of the student `record` names, or None if there is no such user."""
    try:
        return _user_id(record)
    except NotCopied:
        return None


def _aware(moment: datetime) -> datetime:
    """Return nbgrader's time from a folder's name as an aware time (it reads them as UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
