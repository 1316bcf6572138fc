"""The private folders of one confined kernel: made fresh before it starts, removed after it.

    places = KernelPlaces.make(folder, owner=uid, as_submitted=submitted)
    ...                                   # the kernel runs (kernel_confinement.py shows it these)
    places.remove()

One folder of the grader's own (mode 0700) holds everything; the kernel sees four parts of it
at fixed places inside its sandbox, and nothing else that it can write:

    home/       its home; home/<folder's name>/ is a copy of the student's folder, its working
                folder (shown as HOME_MOUNT/<name>)
    tmp/        its /tmp
    sockets/    its connection file and the sockets it opens (shown as SOCKETS_MOUNT)
    runtime/    the supplied course code students' cells import, shown read-only
    host/       the grader's side of the connection, never shown to the kernel

The grader connects to the kernel through host/, where each socket the kernel opened is linked
once it is checked to be a socket the kernel made: the kernel can rename or replace what is in
sockets/, but never make the grader connect anywhere else.
"""

import importlib.util
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from grader.paths import PROJECT_ROOT
from grader.sandbox.cleanup import remove_tree
from grader.sandbox.runtime import COURSE_DATA, COURSE_RUNTIME

HOME_MOUNT = "/home/student"
SOCKETS_MOUNT = "/run/kernel"
CONNECTION_FILE = "kernel.json"
SOCKET_PREFIX = "kernel-ipc"  # jupyter_client names each ipc socket <prefix>-<port>


class KernelChannelError(Exception):
    """Something in the kernel's socket folder is not a socket the kernel opened."""


@dataclass(frozen=True)
class KernelPlaces:
    """One kernel's private folders (see the module docstring) and who owns the kernel's."""

    root: Path
    work_name: str  # the name of the student's folder, kept for the copy
    owner: int | None  # the kernel's user id when the grader is root, else None

    @classmethod
    def make(
        cls, folder: Path | None, owner: int | None, as_submitted: Path | None = None
    ) -> "KernelPlaces":
        """Make the folders for a kernel that works on a copy of `folder` (none: an empty one).

        Only folders and regular files are copied, never a link, and nothing whose counterpart
        in `as_submitted` is a link: nbgrader copies a submitted link as the file it names (a
        gradebook, say), so that file is the course's, not the student's.
        """
        root = Path(tempfile.mkdtemp(prefix="nbgrader-kernel-"))
        places = cls(root, folder.name if folder else "work", owner)
        try:
            for name in ("home", "tmp", "sockets"):
                places._own_folder(root / name)
            places._own_folder(places.work)
            if folder is not None:
                places._copy_tree(folder, places.work, as_submitted)
            (root / "host").mkdir(mode=0o700)
            _copy_runtime(places.runtime)
        except BaseException:
            places.remove()
            raise
        return places

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def work(self) -> Path:
        """The copy of the student's folder: the kernel's working folder."""
        return self.home / self.work_name

    @property
    def work_inside(self) -> str:
        """Where the kernel sees its working folder."""
        return f"{HOME_MOUNT}/{self.work_name}"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"

    @property
    def sockets(self) -> Path:
        return self.root / "sockets"

    @property
    def runtime(self) -> Path:
        return self.root / "runtime"

    @property
    def host_connection_file(self) -> Path:
        """The grader's connection file: the sockets it connects to are in host/."""
        return self.root / "host" / CONNECTION_FILE

    @property
    def host_socket_prefix(self) -> str:
        return str(self.root / "host" / SOCKET_PREFIX)

    def write_kernel_connection_file(self) -> str:
        """Write the kernel's copy of the grader's connection file; return its path inside.

        The same ports and key, with the sockets in the folder the kernel sees as SOCKETS_MOUNT.
        """
        info = json.loads(self.host_connection_file.read_text(encoding="utf-8"))
        info["ip"] = f"{SOCKETS_MOUNT}/{SOCKET_PREFIX}"
        path = self.sockets / CONNECTION_FILE
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        with open(descriptor, "w", encoding="utf-8") as file:
            json.dump(info, file)
        self._chown(path)
        return f"{SOCKETS_MOUNT}/{CONNECTION_FILE}"

    def link_sockets(self, ports: Iterable[int]) -> list[int]:
        """Link into host/ each socket the kernel has opened; return the ports not open yet.

        Each is linked as it is, never through a link, and then checked where the kernel cannot
        change it: what is not a socket owned by the kernel's user is removed again and raises
        KernelChannelError.
        """
        waiting = []
        for port in ports:
            name = f"{SOCKET_PREFIX}-{port}"
            target = self.root / "host" / name
            if target.exists():
                continue
            try:
                os.link(self.sockets / name, target, follow_symlinks=False)
            except FileNotFoundError:
                waiting.append(port)
                continue
            info = os.lstat(target)
            if not stat.S_ISSOCK(info.st_mode) or info.st_uid != self._kernel_user():
                target.unlink()
                raise KernelChannelError(f"{name} is not a socket the kernel opened")
        return waiting

    def remove(self) -> None:
        """Remove every folder of this kernel, whatever it left there."""
        remove_tree(self.root)

    def _kernel_user(self) -> int:
        return os.geteuid() if self.owner is None else self.owner

    def _chown(self, path: Path) -> None:
        if self.owner is not None:
            os.chown(path, self.owner, self.owner, follow_symlinks=False)

    def _own_folder(self, path: Path) -> None:
        path.mkdir(mode=0o700)
        self._chown(path)

    def _copy_tree(self, source: Path, target: Path, as_submitted: Path | None) -> None:
        """Copy the folders and regular files of `source` into `target` (see `make`)."""
        pending = [(source, target, as_submitted)]
        while pending:
            folder, copy, submitted = pending.pop()
            with os.scandir(folder) as entries:
                for entry in entries:
                    counterpart = None if submitted is None else submitted / entry.name
                    if counterpart is not None and counterpart.is_symlink():
                        continue
                    destination = copy / entry.name
                    if entry.is_dir(follow_symlinks=False):
                        self._own_folder(destination)
                        pending.append((Path(entry.path), destination, counterpart))
                    elif entry.is_file(follow_symlinks=False):
                        shutil.copyfile(entry.path, destination, follow_symlinks=False)
                        destination.chmod(0o600)
                        self._chown(destination)


def _copy_runtime(runtime: Path) -> None:
    """Copy the supplied course code, with its bytecode where the project has it, readable by all.

    The same files a grading worker gets (grader/sandbox/runtime.py), without the grader's own.
    """
    for name in (*COURSE_RUNTIME, *COURSE_DATA):
        source = PROJECT_ROOT / name
        target = runtime / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)  # its time kept, so its bytecode stays valid
        if source.suffix == ".py":
            compiled = Path(importlib.util.cache_from_source(str(source)))
            if compiled.is_file():
                copied = Path(importlib.util.cache_from_source(str(target)))
                copied.parent.mkdir(exist_ok=True)
                shutil.copy2(compiled, copied)
    for place in (runtime, *runtime.rglob("*")):
        place.chmod(0o755 if place.is_dir() else 0o644)
