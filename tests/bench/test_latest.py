"""Each benchmark run leaves its printed result, dated, with its command, in one Markdown file."""

from datetime import UTC, datetime

from bench.latest import LATEST, write_latest

pytestmark = []

RUN = [
    "One submission end to end (median): this 0.31 s, baseline 0.38 s",
    "",
    "    N  jobs  grader          wall s/sub  s/sub/core  cpu s/sub  main MiB  tree MiB",
    "  200     1  this                0.0940      0.0940     0.0921        30        97",
]
WHEN = datetime(2026, 12, 4, 17, 30, tzinfo=UTC)


def test_the_page_holds_the_date_the_command_and_every_printed_line(tmp_path):
    page = write_latest(RUN, "python -m bench --sizes 200", WHEN, tmp_path / "latest.md")
    text = page.read_text(encoding="utf-8")
    assert "Measured 2026-12-04 17:30 UTC with `python -m bench --sizes 200`" in text
    for line in RUN:
        assert (f"    {line}" if line else "") in text.splitlines()


def test_the_tables_are_a_markdown_code_block_so_their_columns_stay_aligned(tmp_path):
    text = write_latest(RUN, "python -m bench", WHEN, tmp_path / "latest.md").read_text("utf-8")
    table_lines = text.splitlines()[text.splitlines().index("    " + RUN[0]) :]
    assert all(line == "" or line.startswith("    ") for line in table_lines)


def test_a_new_run_replaces_the_last_one(tmp_path):
    path = tmp_path / "latest.md"
    write_latest(RUN, "python -m bench", WHEN, path)
    write_latest(["GRADERS DISAGREE"], "python -m bench --jobs 2", WHEN, path)
    text = path.read_text(encoding="utf-8")
    assert "GRADERS DISAGREE" in text and "0.0940" not in text


def test_by_default_it_writes_the_page_the_docs_link_to():
    assert LATEST.parent.name == "docs" and LATEST.name == "benchmark-latest.md"
    assert "(benchmark-latest.md)" in (LATEST.parent / "benchmark.md").read_text(encoding="utf-8")
