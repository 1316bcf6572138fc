"""What `grade --similarity` writes: similarity.csv and a section of report.html.

    write_similarity_csv(result, out_dir)        # every pair above the threshold, highest first
    section = similarity_section(result)         # HTML, for grader.reports.class_page

Both say what a score is: how much of two students' code lies in regions that match once names,
comments, layout and the course's own code are set aside. A high score is a reason to look at
the pair, not a verdict: students who follow one lesson write alike. The section shows the top
pairs side by side, the matching regions marked, each name linking to that student's feedback.
Students' code is untrusted text: every character of it, and every id, is escaped here, and
the section is handed to the class report's template as Markup in one place (`_section`).
"""

import html
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from markupsafe import Markup

from grader.outputs import SIMILARITY_FILE, atomic_writer
from grader.reports import spreadsheet
from grader.similarity.pairs import Pair, Region, ShownPair, Similarity

FEEDBACK_PAGE = "feedback.html"
HEADER = ("student_a", "student_b", "score", "share_a", "share_b")
CAVEAT = (
    "A high score is a reason to look at a pair, not a verdict: students who follow the same "
    "lessons write alike, and a pair may have worked together as allowed. Read both students' "
    "code before drawing any conclusion. No grade depends on these scores."
)
# Code longer than this is cut in the report (similarity.csv still counts all of it).
SHOWN_CHARACTERS = 20_000


def write_similarity_csv(result: Similarity, out_dir: str | Path) -> Path:
    """Write similarity.csv in `out_dir`: one row per pair at the threshold or above."""
    path = Path(out_dir) / SIMILARITY_FILE
    with atomic_writer(path) as stream:
        writer = spreadsheet.writer(stream)
        writer.writerow(HEADER)
        for pair in result.pairs:
            writer.writerow(_row(pair))
    return path


def similarity_line(result: Similarity) -> str:
    """Return the summary's line on similar code: how many pairs, where, and what it means."""
    return (
        f"\nSimilar code: {len(result.pairs)} pair(s) of {result.compared} students score "
        f"{result.threshold:.0%} or more ({SIMILARITY_FILE}, and side by side in "
        "report.html). A reason to look, not a verdict."
    )


def _row(pair: Pair) -> list[str]:
    return [pair.student_a, pair.student_b, *(f"{x:.3f}" for x in _scores(pair))]


def _scores(pair: Pair) -> tuple[float, float, float]:
    return pair.score, pair.share_a, pair.share_b


def similarity_section(result: Similarity) -> Markup:
    """Return report.html's section on similar code: the caveat, the top pairs side by side."""
    share = f"{result.threshold:.0%}"
    parts = [
        "<h2 id='similar-code'>Similar code</h2>",
        f"<p class='similarity-caveat'><strong>{html.escape(CAVEAT)}</strong></p>",
        "<p class='note'>"
        + html.escape(
            f"{result.compared} students' code compared with copydetect, names, comments, "
            "layout and order aside, and the released lessons' code and the supplied names "
            f"left out. A pair's score is the mean of each one's share of their own code found "
            f"in the other's; {len(result.pairs)} pair(s) score {share} or more."
        )
        + f" Every such pair is in <a href='{SIMILARITY_FILE}'>{SIMILARITY_FILE}</a>.</p>",
    ]
    if not result.pairs:
        parts.append(f"<p class='similar-pairs'>No pair scores {html.escape(share)} or more.</p>")
        return _section(parts)
    parts.append(_pairs_table(result.shown))
    parts += [_side_by_side(rank, shown) for rank, shown in enumerate(result.shown, 1)]
    return _section(parts)


def _section(parts: list[str]) -> Markup:
    """Return the section as Markup, which the report's template puts as it is.

    Built here rather than by a template because its code is marked region by region
    (`marked`), and every text in it is escaped where it is put.
    """
    return Markup("\n".join(parts))


def _pairs_table(shown: Sequence[ShownPair]) -> str:
    rows = [
        "<table class='similar-pairs'>",
        "<tr><th>#</th><th>Students</th><th class='number'>Score</th>"
        "<th class='number'>Share of each</th></tr>",
    ]
    for rank, item in enumerate(shown, 1):
        pair = item.pair
        rows.append(
            f"<tr><td><a href='#pair-{rank}'>{rank}</a></td>"
            f"<td>{_student(pair.student_a)} and {_student(pair.student_b)}</td>"
            f"<td class='number'>{pair.score:.0%}</td>"
            f"<td class='number'>{pair.share_a:.0%} / {pair.share_b:.0%}</td></tr>"
        )
    rows.append("</table>")
    return "\n".join(rows)


def _student(student: str) -> str:
    return f"<a href='{quote(student)}/{FEEDBACK_PAGE}'>{html.escape(student)}</a>"


def _side_by_side(rank: int, shown: ShownPair) -> str:
    pair = shown.pair
    columns = (
        (pair.student_a, pair.share_a, shown.code_a, shown.regions_a),
        (pair.student_b, pair.share_b, shown.code_b, shown.regions_b),
    )
    cells = "".join(
        f"<div class='code-column'><p>{_student(student)}: {share:.0%} of their code matches"
        f"</p><pre class='code' tabindex='0'>{marked(code, regions)}</pre></div>"
        for student, share, code, regions in columns
    )
    return (
        f"<details class='similar-pair' id='pair-{rank}'{' open' if rank == 1 else ''}>"
        f"<summary>{rank}. {html.escape(pair.student_a)} and {html.escape(pair.student_b)}, "
        f"score {pair.score:.0%}</summary><div class='side-by-side'>{cells}</div></details>"
    )


def marked(code: str, regions: Sequence[Region]) -> str:
    """Return `code` escaped for HTML, each region in <mark>; cut after SHOWN_CHARACTERS."""
    shown, cut = code[:SHOWN_CHARACTERS], len(code) > SHOWN_CHARACTERS
    pieces, done = [], 0
    for start, end in sorted(regions):
        start, end = max(start, done), min(end, len(shown))
        if start >= end:
            continue
        pieces += [html.escape(shown[done:start]), f"<mark>{html.escape(shown[start:end])}</mark>"]
        done = end
    pieces.append(html.escape(shown[done:]))
    if cut:
        pieces.append("\n… (cut here: the rest is in the student's own files)")
    return "".join(pieces)
