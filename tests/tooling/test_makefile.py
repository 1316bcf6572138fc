"""The Makefile's own list of targets: `make help` names every target a person may run."""

import re
import subprocess

from grader.paths import PROJECT_ROOT

MAKEFILE = PROJECT_ROOT / "Makefile"
pytestmark = []
# A rule's first line: its targets, a colon, and no `=` (which would make it a variable).
RULE = re.compile(r"^([^\s#=:][^=:]*):(?!=)", re.MULTILINE)


def makefile_text() -> str:
    """Return the Makefile with its continued lines joined."""
    return MAKEFILE.read_text(encoding="utf-8").replace("\\\n", " ")


def phony_targets() -> set[str]:
    """Return the targets the Makefile declares .PHONY (its commands, not its files)."""
    declared = re.search(r"^\.PHONY:(.*)$", makefile_text(), re.MULTILINE)
    assert declared is not None, "the Makefile declares no .PHONY targets"
    return set(declared.group(1).split())


def rule_targets() -> set[str]:
    """Return every target a rule of the Makefile makes, files (named by a variable) aside."""
    targets = {name for match in RULE.finditer(makefile_text()) for name in match[1].split()}
    return {name for name in targets if not name.startswith(("$", "."))}


def help_names() -> set[str]:
    shown = subprocess.run(
        ["make", "--no-print-directory", "-s", "help"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {match.group(1) for match in re.finditer(r"^make (\S+)", shown, re.MULTILINE)}


def test_every_rule_of_the_makefile_is_a_phony_target():
    assert rule_targets() == phony_targets(), rule_targets() ^ phony_targets()


def test_make_help_names_every_target():
    missing = (rule_targets() | phony_targets()) - {"help"} - help_names()
    assert not missing, sorted(missing)


def test_the_rule_reader_finds_the_targets_people_forget():
    # The targets a help text most easily leaves out: the ones only CI or a maintainer runs.
    assert {"sandbox-deps", "lite-deps", "slurm-deps", "vm-deps", "bytecode", "bench"} <= (
        rule_targets()
    )
