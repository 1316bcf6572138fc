"""similarity.csv and report.html's section on similar code: every pair, the caveat, escaped."""

import csv
import html
import io

from grade_builders import CATALOGUE, CLASS

from grader.reports import class_report
from grader.reports.similarity import (
    CAVEAT,
    marked,
    similarity_line,
    similarity_section,
    write_similarity_csv,
)
from grader.similarity.pairs import Pair, ShownPair, Similarity

pytestmark = []

HOSTILE = "<script>alert(1)</script>"


def similarity(*pairs, shown=()):
    return Similarity(0.5, 4, tuple(pairs), tuple(shown))


def test_the_csv_lists_every_pair_with_its_score_and_both_shares(tmp_path):
    result = similarity(Pair("ana", "ben", 0.98, 0.96), Pair("cleo", "dev", 0.6, 0.5))
    path = write_similarity_csv(result, tmp_path)
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    assert rows == [
        ["student_a", "student_b", "score", "share_a", "share_b"],
        ["ana", "ben", "0.970", "0.980", "0.960"],
        ["cleo", "dev", "0.550", "0.600", "0.500"],
    ]


def test_a_student_id_that_would_run_as_a_formula_is_written_as_text(tmp_path):
    path = write_similarity_csv(similarity(Pair("=HYPERLINK(1)", "ben", 1.0, 1.0)), tmp_path)
    assert "\n'=HYPERLINK(1),ben," in path.read_text(encoding="utf-8")


def test_the_section_says_a_high_score_is_a_reason_to_look_not_a_verdict():
    section = similarity_section(similarity())
    assert "a reason to look at a pair, not a verdict" in CAVEAT
    assert "No grade depends on these scores" in CAVEAT
    assert html.escape(CAVEAT) in section
    assert "No pair scores 50% or more." in section
    assert "not a verdict" in similarity_line(similarity())


def test_the_top_pairs_are_side_by_side_linking_both_feedback_pages():
    pair = Pair("ana", "ben o'neil", 0.9, 0.8)
    shown = ShownPair(pair, "x = 1\ny = 2\n", "y = 2\n", ((6, 11),), ((0, 5),))
    section = similarity_section(similarity(pair, shown=[shown]))
    assert "<a href='ana/feedback.html'>ana</a>" in section
    assert "<a href='ben%20o%27neil/feedback.html'>ben o&#x27;neil</a>" in section
    assert "x = 1\n<mark>y = 2</mark>" in section
    assert "<mark>y = 2</mark>" in section
    assert "score 85%" in section
    # Each side scrolls sideways, so it takes the keyboard's focus (axe: a scrollable region).
    assert section.count("<pre class='code' tabindex='0'>") == 2


def test_students_code_and_ids_are_escaped_everywhere():
    pair = Pair(HOSTILE, "ben", 1.0, 1.0)
    code = f"print('{HOSTILE}')  # </pre></details>"
    shown = ShownPair(pair, code, code, ((0, len(code)),), ())
    section = similarity_section(similarity(pair, shown=[shown]))
    assert "<script>" not in section
    assert "</pre></details>')" not in section
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in section


def test_marked_code_keeps_every_character_once_when_regions_overlap():
    code = "abcdefghij"
    shown = marked(code, [(5, 9), (1, 4), (3, 6)])
    assert shown == "a<mark>bcd</mark><mark>ef</mark><mark>ghi</mark>j"
    assert shown.replace("<mark>", "").replace("</mark>", "") == code


def test_the_class_report_has_the_section_only_when_similarity_was_asked(tmp_path):
    plain = class_report.write_class_report(CLASS, tmp_path / "plain", CATALOGUE)
    asked = class_report.write_class_report(
        CLASS, tmp_path / "asked", CATALOGUE, similarity(Pair("ana", "ben", 1.0, 1.0))
    )
    assert "Similar code" not in plain.read_text(encoding="utf-8")
    page = asked.read_text(encoding="utf-8")
    assert "<h2 id='similar-code'>Similar code</h2>" in page
    assert page.index("Similar code") < page.index("<h2>Files</h2>")
