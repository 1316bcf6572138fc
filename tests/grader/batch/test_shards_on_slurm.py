"""docs/clusters.md's Slurm job array and merge, run on a real cluster, make one run's files.

The script and the two submit lines are read from the docs themselves, so the docs cannot drift
from what CI runs. The test changes only what a test must: its class, shards and merged folder
live in the test's folder instead of /class and the repository, the script is saved there as
grade.sh, and the array is 3 shards of 1 CPU and 1 grading process each instead of 8 of 2, to
keep CI quick on two cores (SHRINK says each change); Slurm's output files go to the cluster's
folder (slurm_cluster.py). sbatch runs from the repository root, as the docs say it must: the
script finds the grader as `.venv/bin/python`.
"""

import re
import shutil
import textwrap
from pathlib import Path

import pytest
from graded_files import files_of
from grader_cli import run_grader
from slurm_cluster import ClusterError, SlurmCluster, slurm_cluster

from grader.paths import PROJECT_ROOT

pytestmark = [pytest.mark.slurm, pytest.mark.bwrap, pytest.mark.slow]

DOCS = PROJECT_ROOT / "docs" / "clusters.md"
FIXTURES = PROJECT_ROOT / "fixtures" / "submissions"
# Nine students: right answers, bugs of several categories, and a syntax error, whose status
# "error" the merge grades again (as a resumed run does), so the merge grades too.
CLASS_FILES = [
    "correct/reference.py",
    "correct/json-round-trip.py",
    "correct/namedtuple-envelope.py",
    "buggy/envelope/ok-is-int.py",
    "buggy/envelope/falsy-id-becomes-none.py",
    "buggy/ownership/shallow-copy-arguments.py",
    "buggy/no_retry/retries-any-exception.py",
    "adversarial/error/syntax-error.py",
    "correct/generator-pipeline.py",
]
SHARDS = 3
# The docs' text, and what the test runs instead: each must be found, or the docs changed.
SHRINK = {
    "--array=1-8": f"--array=1-{SHARDS}",
    "--cpus-per-task=2": "--cpus-per-task=1",
    '/8" --jobs 2': f'/{SHARDS}" --jobs 1',
}
JOBS_SECONDS = 600


def slurm_section() -> str:
    """Return the Slurm section of docs/clusters.md."""
    text = DOCS.read_text(encoding="utf-8")
    return text[text.index("## Slurm") :]


def docs_script_and_submit_lines() -> tuple[str, str]:
    """Return the docs' batch script (the sh block) and the submit lines indented after it."""
    section = slurm_section()
    script = re.search(r"```sh\n(.*?)```\n", section, re.DOTALL)
    assert script, "docs/clusters.md's Slurm section has no ```sh block: the batch script"
    submit = re.match(r"\n*((?:    .*\n)+)", section[script.end() :])
    assert submit, "docs/clusters.md gives no indented submit lines after the batch script"
    return script.group(1), textwrap.dedent(submit.group(1))


def in_folder(text: str, folder: Path) -> str:
    """Return the docs' `text` with its class, shards and merge under `folder`, and shrunk."""
    places = {
        "/class/submitted": str(folder / "class"),
        '"shards/part-': f'"{folder}/shards/part-',
        " shards/part-*": f" {folder}/shards/part-*",
        "--out final": f"--out {folder}/final",
        " grade.sh)": f" {folder}/grade.sh)",
    }
    for old, new in {**places, **SHRINK}.items():
        text = text.replace(old, new)
    return text


def make_class(folder: Path) -> list[str]:
    """Copy the class's submissions into `folder`; return the students."""
    folder.mkdir()
    for number, name in enumerate(CLASS_FILES):
        shutil.copyfile(FIXTURES / name, folder / f"student-{number}.py")
    return [f"student-{number}" for number in range(len(CLASS_FILES))]


@pytest.fixture
def cluster(tmp_path):
    """A one-node Slurm cluster on localhost; not starting fails the test, never skips it."""
    try:
        with slurm_cluster(tmp_path / "slurm") as running:
            yield running
        return
    except ClusterError as error:
        reason = str(error)
    pytest.fail(f"no Slurm cluster: {reason}", pytrace=False)


def submit_as_the_docs_do(cluster: SlurmCluster, folder: Path) -> None:
    """Save the docs' script as grade.sh and run the docs' submit lines from the repository root."""
    script, submit = docs_script_and_submit_lines()
    for old in (*SHRINK, "/class/submitted", "shards/part-", "--out final", "grade.sh)"):
        assert old in script + submit, f"docs/clusters.md no longer says {old!r}"
    (folder / "grade.sh").write_text(in_folder(script, folder), encoding="utf-8")
    cluster.run("sh", "-c", in_folder(submit, folder), cwd=PROJECT_ROOT)


def graded_by_shards(folder: Path) -> list[str]:
    """Return the students in the shards' grades.csv files, sorted, once for each shard's row."""
    parts = [folder / "shards" / f"part-{part}" / "grades.csv" for part in range(1, SHARDS + 1)]
    rows = [row for part in parts for row in part.read_text(encoding="utf-8").splitlines()[1:]]
    return sorted(row.split(",")[0] for row in rows)


def test_the_docs_job_array_and_merge_write_one_runs_files(cluster, tmp_path):
    students = make_class(tmp_path / "class")
    submit_as_the_docs_do(cluster, tmp_path)
    jobs = cluster.wait_for_all_jobs(JOBS_SECONDS)
    ended = {job: (fields["JobState"], fields["ExitCode"]) for job, fields in jobs.items()}
    assert len(ended) == SHARDS + 1, cluster.report()
    assert set(ended.values()) == {("COMPLETED", "0:0")}, f"{ended}\n{cluster.report()}"
    assert graded_by_shards(tmp_path) == students  # each student by exactly one array task
    merge = next(fields for fields in jobs.values() if fields["JobName"] == "wrap")
    # All but the syntax error, whose status "error" the merge grades again.
    reused = f"reused {len(students) - 1} results"
    assert reused in Path(merge["StdOut"]).read_text(encoding="utf-8"), cluster.report()

    single = run_grader("grade", tmp_path / "class", "--out", tmp_path / "single")
    assert single.returncode == 0, single.stderr
    merged, one_run = files_of(tmp_path / "final"), files_of(tmp_path / "single")
    assert {"grades.csv", "report.html", "item-analysis.csv"} <= one_run.keys()
    assert merged.keys() == one_run.keys()
    for name, data in one_run.items():
        assert merged[name] == data, name
    for name in ("grades.csv", "item-analysis.csv"):  # no times in them: the very same bytes
        assert (tmp_path / "final" / name).read_bytes() == (tmp_path / "single" / name).read_bytes()
