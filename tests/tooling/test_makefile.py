"""The Makefile's own list of targets: `make help` names every target a person may run."""

import re
import subprocess

from grader.paths import PROJECT_ROOT

MAKEFILE = PROJECT_ROOT / "Makefile"
pytestmark = []


def phony_targets() -> set[str]:
    """Return the targets the Makefile declares .PHONY (its commands, not its files)."""
    text = MAKEFILE.read_text(encoding="utf-8").replace("\\\n", " ")
    declared = re.search(r"^\.PHONY:(.*)$", text, re.MULTILINE)
    assert declared is not None, "the Makefile declares no .PHONY targets"
    return set(declared.group(1).split())


def test_make_help_names_every_phony_target():
    shown = subprocess.run(
        ["make", "--no-print-directory", "-s", "help"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    named = {match.group(1) for match in re.finditer(r"^make (\S+)", shown, re.MULTILINE)}
    assert phony_targets() - {"help"} <= named, sorted(phony_targets() - {"help"} - named)
