"""A grading job that dies after its first submission, for the tests of what a dead job leaves."""

import subprocess
import sys

from grader import dispatch

# Writes the result of submission 0 from a real job, then dies before the next one.
DYING_JOB = """
import json, pathlib, sys
out = pathlib.Path(sys.argv[2])
source = json.loads(pathlib.Path(sys.argv[1]).read_text())
first = source["submissions"][0]["key"]
tests = json.loads(pathlib.Path(sys.argv[3]).read_text())
outcomes = [dict(t, status="passed", output="") for t in tests]
# Written then renamed, as real jobs write results: a reader never sees half a file.
(out / "partial").write_text(json.dumps(
    {"status": "completed", "reason": "", "outcomes": outcomes}))
(out / "partial").rename(out / f"{first}.json")
sys.exit(9)
"""


def make_jobs_die(monkeypatch, folder, last_words=""):
    """Make every grading job run DYING_JOB, printing `last_words` first into the job's log.

    Listing the hidden tests stays the real job's (into `folder`), so results name real tests.
    """
    listing = folder / "tests.json"
    dispatch.run_job(["--list", str(listing)], folder / "list.log").wait()
    real_run_job = dispatch.run_job

    def dying_job(arguments, log_path, notify_fd=None):
        if arguments[0] == "--list":
            return real_run_job(arguments, log_path, notify_fd)
        source = f"print({last_words!r}, flush=True)\n{DYING_JOB}" if last_words else DYING_JOB
        with open(log_path, "wb") as log:
            return subprocess.Popen(
                [sys.executable, "-c", source, *arguments, str(listing)],
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    monkeypatch.setattr(dispatch, "run_job", dying_job)
