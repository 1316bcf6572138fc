"""A class splits into the same shards every time, and shards merge into one run's files."""

import pytest

from grader.discover import UsageError
from grader.shards import Shard, gather

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
