"""A busy shared server, made on purpose: the load a student's grade must not feel.

    with busy_machine(Load(busy=8), seconds=300):
        ...  # grade a class; every correct copy must still get full marks

Each part is a program of its own in a session of its own, as other users' programs are: the
kernel's autogroup scheduling gives each session one fair share of the processors, so busy
programs started from one session would hardly be felt. Every part ends by itself after
`seconds`, and all are killed when the block ends, so a failing test leaves nothing running.

The parts: `busy` programs that compute without pause; a loop that starts short processes one
after another (process churn); a writer that writes and fsyncs a file over and over; a process
that holds `memory_mb` of memory and touches every page of it again and again; and an evictor
that drops the Python installation's and the project's files from the page cache, as memory
pressure does, so that loading code waits on the disk.
"""

import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from grader.paths import PROJECT_ROOT

# Each program checks the time between its steps and leaves once `end` (a monotonic time) passes.
_BUSY = (
    "import time\nend = {end}\nwhile time.monotonic() < end:\n    for _ in range(100000): pass\n"
)
_CHURN = (
    "import subprocess, time\nend = {end}\n"
    "while time.monotonic() < end:\n    subprocess.run(['true'])\n"
)
_DISK = (
    "import os, time\nend = {end}\nblock = os.urandom(1 << 20)\n"
    "fd = os.open({path!r}, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)\n"
    "while time.monotonic() < end:\n"
    "    os.lseek(fd, 0, 0)\n    for _ in range(8): os.write(fd, block)\n    os.fsync(fd)\n"
)
_MEMORY = (
    "import mmap, time\nend = {end}\nsize = {size}\nheld = mmap.mmap(-1, size)\n"
    "while time.monotonic() < end:\n"
    "    for offset in range(0, size, 4096): held[offset] = 1\n"
)
_EVICT = (
    "import os, time\nend = {end}\nroots = {roots!r}\n"
    "while time.monotonic() < end:\n"
    "    for root in roots:\n"
    "        for folder, _, names in os.walk(root):\n"
    "            for name in names:\n"
    "                try:\n"
    "                    fd = os.open(os.path.join(folder, name), os.O_RDONLY)\n"
    "                except OSError:\n"
    "                    continue\n"
    "                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)\n"
    "                os.close(fd)\n"
    "    time.sleep(1)\n"
)


@dataclass(frozen=True)
class Load:
    """What to put on the machine besides the grading under test."""

    busy: int = 8  # programs that compute without pause, each in a session of its own
    churn: bool = True  # a loop starting short processes
    disk: bool = True  # writes with fsync
    memory_mb: int = 4096  # held and touched over and over; 0 for none
    evict: bool = True  # the Python installation and the project dropped from the page cache


def _programs(load: Load, end: float, scratch: Path) -> list[str]:
    """Return the Python source of every program `load` asks for, each leaving at `end`."""
    programs = [_BUSY.format(end=end)] * load.busy
    if load.churn:
        programs.append(_CHURN.format(end=end))
    if load.disk:
        programs.append(_DISK.format(end=end, path=str(scratch / "written")))
    if load.memory_mb:
        programs.append(_MEMORY.format(end=end, size=load.memory_mb << 20))
    if load.evict:
        roots = [sys.prefix, str(PROJECT_ROOT / "grader"), str(PROJECT_ROOT / "course")]
        programs.append(_EVICT.format(end=end, roots=roots))
    return programs


@contextlib.contextmanager
def busy_machine(load: Load, seconds: float) -> Iterator[list[subprocess.Popen[bytes]]]:
    """Run `load` for at most `seconds` while the block runs; yield its processes."""
    import time

    end = time.monotonic() + seconds
    with tempfile.TemporaryDirectory(prefix="grader-load-") as scratch:
        started: list[subprocess.Popen[bytes]] = []
        try:
            for source in _programs(load, end, Path(scratch)):
                started.append(
                    subprocess.Popen(
                        [sys.executable, "-c", source],
                        stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                        start_new_session=True,
                    )
                )
            yield started
        finally:
            for process in started:
                with contextlib.suppress(OSError):
                    os.killpg(process.pid, 9)
                process.wait()
