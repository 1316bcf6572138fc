"""Each benchmark run leaves its printed result, dated, with its command, in one Markdown file."""

import re
from datetime import UTC, datetime

import pytest

from bench.latest import LATEST, METHOD, section_markers, section_text, write_latest, write_section

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


SIMILARITY = "bench.similarity"
SECTION = re.compile(
    r"^Measured (?P<when>\d{4}-\d\d-\d\d) with `(?P<command>[^`]+)`:\n\n(?P<body>.*)\n\Z",
    re.DOTALL,
)


def test_the_similarity_figures_on_the_benchmark_page_are_what_its_command_writes():
    # What the section holds between its markers, parsed back and written again, is the same
    # text: the figures there are the command's own output, never edited by hand.
    text = METHOD.read_text(encoding="utf-8")
    begin, end = section_markers(SIMILARITY)
    assert text.count(begin) == text.count(end) == 1
    inside = text[text.index(begin) + len(begin) + 1 : text.index(end)]
    found = SECTION.match(inside)
    assert found is not None, inside
    assert found["command"].startswith(f"python -m {SIMILARITY}")
    lines = [line.removeprefix("    ") for line in found["body"].split("\n")]
    when = datetime.strptime(found["when"], "%Y-%m-%d").replace(tzinfo=UTC)
    assert section_text(SIMILARITY, lines, found["command"], when) == f"{begin}\n{inside}{end}"
    assert all(re.fullmatch(r"\d+ students, threshold .* pairs listed", line) for line in lines)


def test_a_run_replaces_only_its_own_section(tmp_path):
    page = tmp_path / "benchmark.md"
    page.write_text(METHOD.read_text(encoding="utf-8"), encoding="utf-8")
    line = "3 students, threshold 0.5: 0.1 s wall, 0.1 s processor, peak 9 MiB; 3 compared"
    write_section(SIMILARITY, [line], "python -m bench.similarity --students 3", WHEN, page)
    before, after = METHOD.read_text(encoding="utf-8"), page.read_text(encoding="utf-8")
    begin, end = section_markers(SIMILARITY)
    assert after[: after.index(begin)] == before[: before.index(begin)]
    assert after[after.index(end) :] == before[before.index(end) :]
    assert f"    {line}\n" in after and "Measured 2026-12-04 with" in after


def test_a_page_without_the_section_is_refused(tmp_path):
    page = tmp_path / "benchmark.md"
    page.write_text("# Benchmark\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no single section"):
        write_section(SIMILARITY, ["x"], "python -m bench.similarity", WHEN, page)
