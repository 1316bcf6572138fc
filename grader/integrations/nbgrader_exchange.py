"""nbgrader's collect, copying only the files students handed in: never a link, pipe or device.

The exchange's inbound folder is writable by every student, and nbgrader's collect copies each
submission from it into `submitted/` as the instructor, following links: a student who left a
link there (to the solutions, the gradebook, a classmate's files) would have collect copy
whatever it names, with the instructor's rights, as that student's work. This collect copies
regular files and folders only; anything else is left out, with a warning naming it, and a
submission that is itself a link is not collected at all. The course's nbgrader_config.py
makes it the exchange's collect (`c.ExchangeFactory.collect`).

This module imports nbgrader; the grader itself never imports it.
"""

import os
import shutil
import stat
import tempfile
from typing import Any

from nbgrader.exchange.default.collect import ExchangeCollect


class CollectWithoutLinks(ExchangeCollect):  # type: ignore[misc]
    """nbgrader's collect, whose copy takes regular files and folders only."""

    def do_copy(self, src: str, dest: str, log: Any = None) -> None:
        """Copy `src` to `dest` as nbgrader does, leaving out what is not a file or a folder.

        nbgrader's own copy (its size check, ignore list and group modes) then copies a private
        copy of the submission taken without following anything.
        """
        if os.path.islink(src):
            self.log.warning("Not collected: %s is a link, not a submission", src)
            return
        with tempfile.TemporaryDirectory(prefix="nbgrader-collect-") as staging:
            plain = os.path.join(staging, os.path.basename(src))
            shutil.copytree(src, plain, symlinks=True, ignore=self._not_plain)
            super().do_copy(plain, dest, log)

    def _not_plain(self, folder: str, names: list[str]) -> set[str]:
        """Return the names in `folder` that are neither a regular file nor a folder."""
        left_out = set()
        for name in names:
            mode = os.lstat(os.path.join(folder, name)).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                self.log.warning("Not collected: %s is not a file", os.path.join(folder, name))
                left_out.add(name)
        return left_out
