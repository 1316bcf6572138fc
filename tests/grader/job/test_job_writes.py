"""Two jobs of a run write facts.json at the same moment (both collect the same hidden tests at
once); neither may fail for it, and a reader only ever sees a whole file."""

import json
import multiprocessing

from grader.jobfiles import write_json

pytestmark = []

WRITES = 3000


def write_many(path, number):
    facts = {"catalogue": [{"test_id": f"t{n}"} for n in range(200)], "isolation": str(number)}
    for _ in range(WRITES):
        write_json(path, facts)


def test_two_jobs_writing_the_same_facts_at_once_both_succeed(tmp_path):
    path = tmp_path / "facts.json"
    context = multiprocessing.get_context("fork")
    writers = [context.Process(target=write_many, args=(path, n)) for n in range(2)]
    for writer in writers:
        writer.start()
    seen = 0
    while any(writer.is_alive() for writer in writers):
        if path.exists():
            assert len(json.loads(path.read_text(encoding="utf-8"))["catalogue"]) == 200
            seen += 1
    for writer in writers:
        writer.join()
    assert [writer.exitcode for writer in writers] == [0, 0]
    assert seen > 0
    assert [p.name for p in tmp_path.iterdir()] == ["facts.json"]  # no partial file left over
