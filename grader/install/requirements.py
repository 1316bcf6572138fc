"""The project's pins: requirements.txt read in one place for whatever installs part of it.

The student handout and the Gradescope bundle each install a few of the packages the project
pins, at the very versions its tests ran with.
"""

import re
from collections.abc import Iterable
from pathlib import Path

from grader.paths import REQUIREMENTS

PIN = re.compile(r"([A-Za-z0-9_.-]+)\s*==")


def pinned_requirements(
    packages: Iterable[str], requirements_file: str | Path = REQUIREMENTS
) -> list[str]:
    """Return requirements.txt's line for each of `packages`, in their order, pin included.

    Raise ValueError naming the packages the file does not pin, so nothing installs unpinned.
    """
    pins = {}
    for line in Path(requirements_file).read_text(encoding="utf-8").splitlines():
        match = PIN.match(line.strip())
        if match:
            pins[match.group(1).lower()] = line.strip()
    wanted = [package.lower() for package in packages]
    missing = [package for package in wanted if package not in pins]
    if missing:
        raise ValueError(f"requirements.txt pins none of: {', '.join(missing)}")
    return [pins[package] for package in wanted]
