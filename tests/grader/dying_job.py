"""Grading jobs that die, for the tests of what a dead job leaves and of the jobs started again."""

import subprocess
import sys
from pathlib import Path

from grader.batch import dispatch
from grader.jobfiles import read_job_input

# Writes the result of its first submission from a real job's catalogue, then dies (exit 9).
DIES_AFTER_ONE = """
import json, pathlib, sys
out = pathlib.Path(sys.argv[2])
# A job's input is JSON Lines (grader/jobfiles.py): the settings, then one submission a line.
first = json.loads(pathlib.Path(sys.argv[1]).read_text().splitlines()[1])["key"]
tests = json.loads(pathlib.Path(sys.argv[3]).read_text())
outcomes = [dict(t, status="passed", output="", example="", taught="") for t in tests]
# Written then renamed, as real jobs write results: a reader never sees half a file.
(out / "partial").write_text(json.dumps(
    {"status": "completed", "reason": "", "outcomes": outcomes}))
(out / "partial").rename(out / f"{first}.json")
sys.exit(9)
"""

# Dies (exit 9) before grading anyone, as a job that cannot start its sandbox would.
DIES_AT_ONCE = "import sys\nsys.exit(9)\n"


def make_jobs_die(monkeypatch, folder, last_words="", *, program=DIES_AFTER_ONE, deaths=None):
    """Make grading jobs run `program`, printing `last_words` first into the job's log.

    Only the first `deaths` grading jobs die (every one when None); later ones are real.
    Listing the hidden tests stays the real job's (into `folder`), so results name real tests.
    Return the grading jobs started, in order, as they were then: (input file name, the
    submission keys it held).
    """
    listing = folder / "tests.json"
    dispatch.run_job(["--list", str(listing)], folder / "list.log").wait()
    real_run_job = dispatch.run_job
    started = []

    def dying_job(arguments, log_path, notify_fd=None, core=None):
        if arguments[0] == "--list":
            return real_run_job(arguments, log_path, notify_fd, core)
        _settings, entries = read_job_input(Path(arguments[0]))
        started.append((Path(arguments[0]).name, [entry["key"] for entry in entries]))
        if deaths is not None and len(started) > deaths:
            return real_run_job(arguments, log_path, notify_fd, core)
        source = f"print({last_words!r}, flush=True)\n{program}" if last_words else program
        with open(log_path, "wb") as log:
            return subprocess.Popen(
                [sys.executable, "-c", source, *arguments, str(listing)],
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    monkeypatch.setattr(dispatch, "run_job", dying_job)
    return started
