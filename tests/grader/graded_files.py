"""What a grading run wrote, with the times taken out: two runs of one class compare equal.

Shared by the tests that merge shards (run here at once, or as a Slurm job array) and compare the
merge with one run over the whole class. docs/clusters.md promises that only the times differ:
timings.json, the seconds in the run records, and one column of the class report.
"""

import json
import re
from pathlib import Path

# The seconds each run took differ from run to run by nature: they are kept apart in
# timings.json and the run records, and shown in one column of the class report.
TIMES = re.compile(r"--time-(up|down):\d+;|<td role='cell' class='number'>\d+\.\d</td>")


def files_of(folder: Path) -> dict[str, str]:
    """Return every file the grader wrote in `folder`, by path, with times taken out."""
    found = {}
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if path.is_dir() or name == "timings.json":
            continue
        data = path.read_text(encoding="utf-8")
        if name.startswith(".resume/") and not name.endswith(".facts.json"):
            data = json.dumps(dict(json.loads(data), seconds=None))
        found[name] = TIMES.sub("", data) if name == "report.html" else data
    return found
