"""A class splits into the same shards every time, and shards merge into one run's files."""

import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from graded_files import files_of

from grader.batch.shards import Shard, gather
from grader.model import UsageError
from grader.paths import PROJECT_ROOT

pytestmark = []

CLASS = [f"student-{n:03d}" for n in range(10)] + ["Ada", "ada", "zoë"]


def test_every_student_is_in_exactly_one_shard_and_sizes_differ_by_one_at_most():
    shards = [Shard(number, 4).students(CLASS) for number in range(1, 5)]
    assert set().union(*shards) == set(CLASS)
    assert sum(len(shard) for shard in shards) == len(CLASS)
    assert max(map(len, shards)) - min(map(len, shards)) <= 1


def test_the_split_depends_on_the_class_not_on_the_order_it_was_found_in():
    assert Shard(2, 3).students(CLASS) == Shard(2, 3).students(list(reversed(CLASS)))


@pytest.mark.parametrize(
    ("text", "shard"), [("1/1", Shard(1, 1)), ("3/8", Shard(3, 8)), ("8/8", Shard(8, 8))]
)
def test_a_shard_is_written_k_of_n(text, shard):
    assert Shard.parse(text) == shard


@pytest.mark.parametrize("text", ["0/3", "4/3", "3", "a/b", "1/0", "-1/3", "1/3/5"])
def test_anything_else_is_one_clear_error(text):
    with pytest.raises(UsageError, match="--shard"):
        Shard.parse(text)


def grader_output(folder, students, text="result"):
    """Write what a grading run leaves for `students`: a record and a folder each."""
    (folder / ".resume").mkdir(parents=True)
    for student in students:
        (folder / ".resume" / f"{student}.json").write_text(f"{text} of {student}")
        (folder / student).mkdir()
        (folder / student / "feedback.md").write_text(f"feedback of {student}")
    return folder


def test_gather_brings_every_shards_records_and_student_folders_together(tmp_path):
    first = grader_output(tmp_path / "part-1", ["ada", "bob"])
    second = grader_output(tmp_path / "part-2", ["cy"])
    gather([first, second], tmp_path / "final")
    for student in ("ada", "bob", "cy"):
        assert (tmp_path / "final" / ".resume" / f"{student}.json").read_text() == (
            f"result of {student}"
        )
        assert (tmp_path / "final" / student / "feedback.md").is_file()


def test_two_shards_with_different_results_for_one_student_are_refused(tmp_path):
    first = grader_output(tmp_path / "part-1", ["ada"])
    second = grader_output(tmp_path / "part-2", ["ada"], text="another result")
    with pytest.raises(UsageError, match="two shards graded 'ada' differently"):
        gather([first, second], tmp_path / "final")


def test_a_folder_the_grader_did_not_write_is_refused(tmp_path):
    (tmp_path / "photos").mkdir()
    with pytest.raises(UsageError, match="not a folder the grader wrote"):
        gather([tmp_path / "photos"], tmp_path / "final")


# End to end: N shards graded at once here, as array tasks would be, then merged.

FIXTURES = PROJECT_ROOT / "fixtures" / "submissions"
CLASS_FILES = [
    "correct/reference.py",
    "correct/json-round-trip.py",
    "buggy/envelope/ok-is-int.py",
    "buggy/ownership/shallow-copy-arguments.py",
    "buggy/no_retry/retries-any-exception.py",
    "adversarial/error/syntax-error.py",
]


def grade(*arguments):
    done = subprocess.run(
        [sys.executable, "-m", "grader", "grade", *map(str, arguments)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.bwrap
def test_shards_graded_at_once_merge_into_exactly_the_files_of_one_run(tmp_path):
    submissions = tmp_path / "class"
    submissions.mkdir()
    for number, name in enumerate(CLASS_FILES):
        shutil.copyfile(FIXTURES / name, submissions / f"student-{number}.py")
    (tmp_path / "roster.csv").write_text(
        "id\n" + "".join(f"student-{n}\n" for n in range(len(CLASS_FILES) + 1))
    )
    options = ["--roster", tmp_path / "roster.csv", "--lms", "canvas"]
    grade(submissions, "--out", tmp_path / "one-run", *options)
    count = 3
    with ThreadPoolExecutor(count) as pool:  # as array tasks on three machines would
        list(
            pool.map(
                lambda k: grade(
                    submissions,
                    "--out",
                    tmp_path / f"part-{k}",
                    "--shard",
                    f"{k}/{count}",
                    *options,
                ),
                range(1, count + 1),
            )
        )
    parts = [tmp_path / f"part-{k}" for k in range(1, count + 1)]
    merged = grade(submissions, "--out", tmp_path / "merged", "--merge", *parts, *options)
    # All but the syntax error, whose status "error" a resumed run grades again, as it would
    # a failure of the grader's own.
    assert f"reused {len(CLASS_FILES) - 1} results" in merged.stdout
    one_run, merged_files = files_of(tmp_path / "one-run"), files_of(tmp_path / "merged")
    assert merged_files.keys() == one_run.keys()
    for name, data in one_run.items():
        assert merged_files[name] == data, name
    graded = [
        row.split(",")[0]
        for part in parts
        for row in (part / "grades.csv").read_text().splitlines()[1:]
    ]
    assert sorted(graded) == [f"student-{n}" for n in range(len(CLASS_FILES) + 1)]


@pytest.mark.bwrap
def test_a_student_no_shard_finished_is_graded_by_the_merge(tmp_path):
    submissions = tmp_path / "class"
    submissions.mkdir()
    for number, name in enumerate(CLASS_FILES[:3]):
        shutil.copyfile(FIXTURES / name, submissions / f"student-{number}.py")
    grade(submissions, "--out", tmp_path / "part-1", "--shard", "1/2")
    merged = grade(submissions, "--out", tmp_path / "merged", "--merge", tmp_path / "part-1")
    assert "reused 2 results" in merged.stdout and "graded 1" in merged.stdout
    rows = (tmp_path / "merged" / "grades.csv").read_text().splitlines()[1:]
    assert [row.split(",")[0] for row in rows] == ["student-0", "student-1", "student-2"]


@pytest.mark.bwrap
def test_shard_and_merge_in_one_run_is_a_usage_error(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "grade",
            str(tmp_path),
            "--out",
            str(tmp_path / "o"),
            "--shard",
            "1/2",
            "--merge",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "grader: error: --shard and --merge go in separate runs: grade the shards, then merge"
    ]
