"""Hand-written inline SVG charts for the class report: no script, no file, nothing fetched.

Each bar carries `data-label` and `data-value` (what the tests and a curious reader can check)
and a <title> a screen reader says and a mouse shows. The same bars always give the same bytes.
A chart is returned as Markup, for the class report's template to put as it is: `_svg` is the
one place that says so, and every text in a chart is escaped where it is put (`text`, `rect`,
`svg_open`); the coordinates are numbers formatted here.
"""

import html
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

CHART_WIDTH = 720
HISTOGRAM_WIDTH = 1000  # room for a column per point of a 70-point score
PLOT_HEIGHT = 200
TOP_ROOM = 20  # above the tallest column, for its value
LABEL_ROOM = 150
BAR_ROW = 28
VALUE_LABEL_MIN_SLOT = 12  # a column narrower than this shows its value only in its title
MINI_WIDTH = 220
MINI_HEIGHT = 44


@dataclass(frozen=True)
class Bar:
    """One bar of a chart: its label, its value, and the text a screen reader says for it."""

    label: str
    value: float  # in chart units: students for a histogram, percent for a rate
    title: str
    axis_label: str = ""  # shown under a column; empty for none
    css: str = "bar"


def column_chart(bars: Sequence[Bar], css_class: str, title: str) -> Markup:
    """Return an SVG column chart: one vertical bar per Bar, scaled to the largest value."""
    slot = (HISTOGRAM_WIDTH - 40) / max(len(bars), 1)
    largest = max((bar.value for bar in bars), default=0) or 1
    baseline = TOP_ROOM + PLOT_HEIGHT
    parts = [svg_open(css_class, title, HISTOGRAM_WIDTH, baseline + 30)]
    axis_end = HISTOGRAM_WIDTH - 20
    parts.append(f'<line class="axis" x1="20" y1="{baseline}" x2="{axis_end}" y2="{baseline}"/>')
    for index, bar in enumerate(bars):
        bar_height = PLOT_HEIGHT * bar.value / largest
        x = 20 + index * slot
        gap = min(4, slot / 6)
        parts.append(rect(x + gap, baseline - bar_height, slot - 2 * gap, bar_height, bar))
        middle = x + slot / 2
        if bar.axis_label:
            parts.append(text(middle, baseline + 20, bar.axis_label, "middle"))
        if bar.value and slot >= VALUE_LABEL_MIN_SLOT:
            count = text(middle, baseline - bar_height - 5, f"{bar.value:g}", "middle")
            parts.append(count.replace("<text ", '<text class="count" ', 1))
    return _svg(parts)


def row_chart(bars: Sequence[Bar], css_class: str, title: str, full_scale: float = 100.0) -> Markup:
    """Return an SVG bar chart: one horizontal bar per Bar, `full_scale` spanning the plot.

    A light track behind each bar shows the full scale, so a short bar reads as a low rate.
    """
    plot_width = CHART_WIDTH - LABEL_ROOM - 60
    height = BAR_ROW * len(bars) + 10
    parts = [svg_open(css_class, title, CHART_WIDTH, height)]
    for index, bar in enumerate(bars):
        y = 5 + index * BAR_ROW
        width = plot_width * bar.value / full_scale
        parts.append(text(LABEL_ROOM - 8, y + BAR_ROW / 2 + 4, bar.label, "end"))
        parts.append(
            f'<rect class="track" x="{LABEL_ROOM}" y="{n(y + 4)}" width="{n(plot_width)}" '
            f'height="{BAR_ROW - 8}"/>'
        )
        parts.append(rect(LABEL_ROOM, y + 4, width, BAR_ROW - 8, bar))
        parts.append(text(LABEL_ROOM + width + 6, y + BAR_ROW / 2 + 4, f"{bar.value:g}%", "start"))
    return _svg(parts)


def mini_histogram(bars: Sequence[Bar], css_class: str, title: str) -> Markup:
    """Return a small column chart without axis labels, for a table cell; titles say it all."""
    slot = MINI_WIDTH / max(len(bars), 1)
    largest = max((bar.value for bar in bars), default=0) or 1
    plot = MINI_HEIGHT - 4
    parts = [svg_open(css_class, title, MINI_WIDTH, MINI_HEIGHT)]
    parts.append(
        f'<line class="axis" x1="0" y1="{MINI_HEIGHT - 1}" x2="{MINI_WIDTH}" '
        f'y2="{MINI_HEIGHT - 1}"/>'
    )
    for index, bar in enumerate(bars):
        bar_height = plot * bar.value / largest
        parts.append(
            rect(index * slot + 1, MINI_HEIGHT - 1 - bar_height, slot - 2, bar_height, bar)
        )
    return _svg(parts)


def _svg(parts: list[str]) -> Markup:
    """Close the chart and return it as Markup: its parts escape their own texts (see above)."""
    return Markup("\n".join([*parts, "</svg>"]))


def svg_open(css_class: str, title: str, width: float, height: float) -> str:
    """Return the opening of an accessible SVG image with its title."""
    ident = f"{css_class}-title"
    return (
        f'<svg class="chart {css_class}" role="img" aria-labelledby="{ident}" '
        f'width="{n(width)}" height="{n(height)}" viewBox="0 0 {n(width)} {n(height)}" '
        'xmlns="http://www.w3.org/2000/svg">\n'
        f'<title id="{ident}">{html.escape(title)}</title>'
    )


def rect(x: float, y: float, width: float, height: float, bar: Bar) -> str:
    """Return one bar as an SVG rect with its data attributes and title."""
    return (
        f'<rect class="{bar.css}" x="{n(x)}" y="{n(y)}" width="{n(width)}" height="{n(height)}" '
        f'data-label="{html.escape(bar.label)}" data-value="{bar.value:g}">'
        f"<title>{html.escape(bar.title)}</title></rect>"
    )


def text(x: float, y: float, content: object, anchor: str) -> str:
    """Return an SVG text element, escaped."""
    return f'<text x="{n(x)}" y="{n(y)}" text-anchor="{anchor}">{html.escape(str(content))}</text>'


def n(number: float) -> str:
    """Return a coordinate with at most two decimals, the same way on every run."""
    return f"{round(number, 2):g}"
