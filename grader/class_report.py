"""The class report: one offline HTML page that shows how a whole class did.

    write_class_report(grades, out_dir)    # writes out_dir/report.html

The page holds the score distribution, the pass rate of each category (the concepts the class
struggles with), the hidden tests most students failed, named by their student-facing
description, and the students whose runs did not complete. Charts are hand-written inline SVG:
no script, no style sheet or font from the network, so the page opens anywhere, offline. The
same grades always give the same bytes.
"""

import html
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from grader.feedback import STATUS_WORDS, format_points
from grader.model import CATEGORIES, STOPPED_STATUSES, RunResult
from grader.report import write_atomically
from grader.score import score

REPORT_FILE = "report.html"
SCORE_BINS = 7
MOST_FAILED_SHOWN = 10
# Test statuses that mean the student's code did not finish, rather than answered wrongly.
UNSHOWABLE_REASON = "The grader could not show this result in the class report."

# Chart geometry, in SVG user units.
CHART_WIDTH = 640
PLOT_HEIGHT = 200
TOP_ROOM = 20  # above the tallest column, for its value
LABEL_ROOM = 150
BAR_ROW = 28


@dataclass(frozen=True)
class Bar:
    """One bar of a chart: its label, its value, and the text a screen reader says for it."""

    label: str
    value: float  # in chart units: students for the histogram, percent for pass rates
    title: str


def score_bins(grades, bins=SCORE_BINS):
    """Return one Bar per equal band of the maximum score, counting the students in each band.

    A score equal to the maximum falls in the top band.
    """
    top = max((g.max_score for g in grades), default=float(bins)) or float(bins)
    width = top / bins
    counts = Counter(min(int(g.score / width), bins - 1) for g in grades)
    result = []
    for index in range(bins):
        low, high = index * width, (index + 1) * width
        label = f"{low:g}–{high:g}"
        count = counts.get(index, 0)
        result.append(Bar(label, count, f"{label} points: {_count(count, 'student')}"))
    return result


def category_pass_rates(grades):
    """Return one Bar per category: the percentage of its hidden tests passed across the class."""
    result = []
    for category in CATEGORIES:
        scores = [c for g in grades for c in g.categories if c.category == category]
        total = sum(c.judged for c in scores)
        passed = sum(c.passed for c in scores)
        rate = round(100 * passed / total, 1) if total else 0.0
        title = f"{category}: {rate:g}% of tests passed ({passed} of {total})"
        result.append(Bar(category, rate, title))
    return result


def most_failed_tests(grades, limit=MOST_FAILED_SHOWN):
    """Return (category, description, students) for the tests most students answered wrongly.

    A test counts once per student, however many of its cases failed. Only wrong answers count:
    a run that stopped early says nothing about which concepts were misunderstood.
    """
    failing = Counter()
    for grade in grades:
        failed = {(o.category, o.description) for o in grade.run.outcomes if o.status == "failed"}
        failing.update(failed)
    ranked = sorted(failing.items(), key=lambda item: (-item[1], item[0]))
    return [(category, description, count) for (category, description), count in ranked[:limit]]


def stopped_runs(grades):
    """Return (student, what happened) for every student whose code did not run to the end."""
    rows = []
    for grade in sorted(grades, key=lambda g: g.run.submission.student):
        run = grade.run
        stopped = Counter(o.status for o in run.outcomes if o.status in STOPPED_STATUSES)
        if run.status == "completed" and not stopped:
            continue
        if run.status == "completed":
            parts = ["the run finished"]
        else:
            parts = [f"the run stopped: {STATUS_WORDS.get(run.status, run.status)}"]
        parts += [f"{_count(n, 'test')} {STATUS_WORDS[s]}" for s, n in sorted(stopped.items())]
        rows.append((run.submission.student, "; ".join(parts)))
    return rows


def _count(number, noun):
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def class_report_html(grades):
    """Return the class report page for a list of Grades."""
    grades = sorted(grades, key=lambda g: g.run.submission.student)
    scores = [g.score for g in grades]
    average = format_points(sum(scores) / len(scores)) if scores else "–"
    top = format_points(grades[0].max_score) if grades else "–"
    sections = [
        "<h1>Class report</h1>",
        f"<p>{len(grades)} students graded. Average score {average} out of {top}.</p>",
        "<h2>Score distribution</h2>",
        column_chart(score_bins(grades), "chart-scores", "Students by score band"),
        "<h2>Pass rate by category</h2>",
        "<p>The share of each category's hidden tests that passed, over every student.</p>",
        row_chart(category_pass_rates(grades), "chart-categories", "Pass rate by category"),
        "<h2>Most failed tests</h2>",
        _most_failed_list(most_failed_tests(grades)),
        "<h2>Runs that timed out or crashed</h2>",
        _stopped_table(stopped_runs(grades)),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>Class report</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(sections)
        + "\n</body>\n</html>\n"
    )


def column_chart(bars, css_class, title):
    """Return an SVG column chart: one vertical bar per Bar, scaled to the largest value."""
    slot = (CHART_WIDTH - 40) / max(len(bars), 1)
    largest = max((bar.value for bar in bars), default=0) or 1
    baseline = TOP_ROOM + PLOT_HEIGHT
    parts = [_svg_open(css_class, title, baseline + 30)]
    axis_end = CHART_WIDTH - 20
    parts.append(f'<line class="axis" x1="20" y1="{baseline}" x2="{axis_end}" y2="{baseline}"/>')
    for index, bar in enumerate(bars):
        bar_height = PLOT_HEIGHT * bar.value / largest
        x = 20 + index * slot
        parts.append(_rect(x + 4, baseline - bar_height, slot - 8, bar_height, bar))
        middle = x + slot / 2
        parts.append(_text(middle, baseline + 20, bar.label, "middle"))
        parts.append(_text(middle, baseline - bar_height - 5, f"{bar.value:g}", "middle"))
    parts.append("</svg>")
    return "\n".join(parts)


def row_chart(bars, css_class, title, full_scale=100.0):
    """Return an SVG bar chart: one horizontal bar per Bar, `full_scale` spanning the plot.

    A light track behind each bar shows the full scale, so a short bar reads as a low rate.
    """
    plot_width = CHART_WIDTH - LABEL_ROOM - 60
    height = BAR_ROW * len(bars) + 10
    parts = [_svg_open(css_class, title, height)]
    for index, bar in enumerate(bars):
        y = 5 + index * BAR_ROW
        width = plot_width * bar.value / full_scale
        parts.append(_text(LABEL_ROOM - 8, y + BAR_ROW / 2 + 4, bar.label, "end"))
        parts.append(
            f'<rect class="track" x="{LABEL_ROOM}" y="{_n(y + 4)}" width="{_n(plot_width)}" '
            f'height="{BAR_ROW - 8}"/>'
        )
        parts.append(_rect(LABEL_ROOM, y + 4, width, BAR_ROW - 8, bar))
        parts.append(_text(LABEL_ROOM + width + 6, y + BAR_ROW / 2 + 4, f"{bar.value:g}%", "start"))
    parts.append("</svg>")
    return "\n".join(parts)


def _svg_open(css_class, title, height):
    ident = f"{css_class}-title"
    return (
        f'<svg class="chart {css_class}" role="img" aria-labelledby="{ident}" '
        f'width="{CHART_WIDTH}" height="{_n(height)}" viewBox="0 0 {CHART_WIDTH} {_n(height)}" '
        'xmlns="http://www.w3.org/2000/svg">\n'
        f'<title id="{ident}">{html.escape(title)}</title>'
    )


def _rect(x, y, width, height, bar):
    return (
        f'<rect class="bar" x="{_n(x)}" y="{_n(y)}" width="{_n(width)}" height="{_n(height)}" '
        f'data-label="{html.escape(bar.label)}" data-value="{bar.value:g}">'
        f"<title>{html.escape(bar.title)}</title></rect>"
    )


def _text(x, y, content, anchor):
    return (
        f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}">{html.escape(str(content))}</text>'
    )


def _n(number):
    """Return a coordinate with at most two decimals, the same way on every run."""
    return f"{round(number, 2):g}"


def _most_failed_list(tests):
    if not tests:
        return '<p class="most-failed">No hidden test was answered wrongly.</p>'
    items = []
    for category, description, count in tests:
        items.append(
            f"<li>{html.escape(description)} <span class='category'>({html.escape(category)})"
            f"</span>: {_count(count, 'student')}</li>"
        )
    return '<ol class="most-failed">\n' + "\n".join(items) + "\n</ol>"


def _stopped_table(rows):
    if not rows:
        return '<p class="stopped-runs">Every run finished in time, without a crash.</p>'
    lines = ['<table class="stopped-runs">', "<tr><th>Student</th><th>What happened</th></tr>"]
    lines += [
        f"<tr><td>{html.escape(student)}</td><td>{html.escape(what)}</td></tr>"
        for student, what in rows
    ]
    return "\n".join([*lines, "</table>"])


def write_class_report(grades, out_dir):
    """Write the class report as out_dir/report.html; return its path.

    A student's result that the page cannot show is shown as an error instead, so one odd
    result never costs the class its report.
    """
    path = Path(out_dir) / REPORT_FILE
    write_atomically(path, _whole_report(list(grades)))
    return path


def _whole_report(grades):
    """Return the class report page, with any grade it cannot show replaced by an error."""
    try:
        return class_report_html(grades)
    except Exception:
        pass
    # Only now, since it costs a page per student: find the results the page cannot show.
    shown = [grade if _can_show(grade) else _unshowable(grade) for grade in grades]
    return class_report_html(shown)


def _can_show(grade):
    """Say whether the class report can show `grade` on a page of its own."""
    try:
        class_report_html([grade])
    except Exception:
        return False
    return True


def _unshowable(grade):
    """Return an "error" grade, with no points, for a result the class report cannot show."""
    result = RunResult(grade.run.submission, (), "error", UNSHOWABLE_REASON)
    return score(result)


_STYLE = (
    "body{font-family:sans-serif;max-width:48rem;margin:2rem auto;line-height:1.5}"
    "table{border-collapse:collapse}th,td{border:1px solid #999;padding:.25rem .75rem}"
    ".chart .bar{fill:#3b6ea5}.chart .track{fill:#e8edf3}.chart .axis{stroke:#999}"
    ".chart text{font-size:12px;fill:#222}"
)
