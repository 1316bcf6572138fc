"""Every exercise function a submission defines, checked, as JSON text for a grader to show.

Gradescope shows a student the visible checks as its tests visible at once; the grader runs
them in its sandbox, beside the student's code, and reads back only this text. Each entry is
what the check cell in the notebook would print, so the two never say different things.
"""

import io
import json

from course.carry.execute import Namespace
from course.checks import CHECKS
from course.checks.harness import print_report

# invoke_tool is the one function every submission must define; the others are checked when
# the submission has them (a single .py file may build invoke_tool in its own way).
REQUIRED = "invoke_tool"
NOT_DEFINED = (
    "No function named invoke_tool was defined once your code had run. Check its name and "
    "that the cell or file that defines it runs without errors."
)


def visible_checks_json(namespace: Namespace) -> str:
    """Return a JSON list of {"name", "ok", "text"}, one per exercise function `namespace` has."""
    entries = []
    for name, check in CHECKS.items():
        function = namespace.get(name)
        if not callable(function):
            if name == REQUIRED:
                entries.append({"name": name, "ok": False, "text": f"✗ {NOT_DEFINED}\n"})
            continue
        report = check(function)
        text = io.StringIO()
        print_report(report, out=text, err=text)
        entries.append({"name": name, "ok": report.ok, "text": text.getvalue()})
    return json.dumps(entries, ensure_ascii=False)
